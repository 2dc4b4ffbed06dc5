# expect: wrong_answer
# message: exp overflows
# exp(x) overflows to inf once x is above about 88 (float32) or 709 (float64): inf / inf is NaN.
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)
