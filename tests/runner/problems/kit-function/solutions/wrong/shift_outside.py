# expect: wrong_answer
# message: This is exactly what adding the shift
import torch


def scaled_tanh(x, scale, shift=0.0):
    return scale * (2 * torch.sigmoid(2 * x) - 1) + shift
