# expect: wrong_answer
# message: differ
import torch


def scaled_tanh(x, scale, shift=0.0):
    return (scale * (2 * torch.sigmoid(2 * (x + shift)) - 1)).half().to(x.dtype)
