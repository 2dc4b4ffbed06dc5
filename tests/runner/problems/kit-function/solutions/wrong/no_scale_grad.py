# expect: wrong_answer
# message: do not depend on scale
import torch


def scaled_tanh(x, scale, shift=0.0):
    return scale.detach() * (2 * torch.sigmoid(2 * (x + shift)) - 1)
