# expect: wrong_answer
import torch


def softmax(x, dim=-1):
    return torch.zeros_like(x) + 0 * x
