# expect: wrong_answer
# message: y[0] depends on x[2], a row it must not read
import torch


def scaled_tanh(x, scale, shift=0.0):
    return scale * (2 * torch.sigmoid(2 * (x.roll(1, 0) + shift)) - 1)
