# expect: forbidden
import torch


def scaled_tanh(x, scale, shift=0.0):
    return scale * torch.tanh(x + shift)
