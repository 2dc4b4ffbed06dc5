# expect: wrong_answer
# message: This is exactly what leaving out the scale
import torch


def scaled_tanh(x, scale, shift=0.0):
    return 2 * torch.sigmoid(2 * (x + shift)) - 1 + 0 * scale
