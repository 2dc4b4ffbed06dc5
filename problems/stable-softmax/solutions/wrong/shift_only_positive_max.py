# expect: wrong_answer
# message: exp underflows
# Subtracts the maximum only where it is positive, since exp of a number <= 0 cannot overflow. But a slice
# whose entries all lie far below zero underflows: every exp is 0, and 0 / 0 is NaN.
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    shift = x.amax(dim=dim, keepdim=True).clamp(min=0)
    e = (x - shift).exp()
    return e / e.sum(dim=dim, keepdim=True)
