import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    # exp(x - m) / sum(exp(x - m)) equals exp(x) / sum(exp(x)) for any m; with m the maximum every exponent
    # is <= 0, so nothing overflows and the largest term is exactly 1, so the sum cannot underflow to 0.
    shifted = x - x.amax(dim=dim, keepdim=True)
    exponentials = shifted.exp()
    return exponentials / exponentials.sum(dim=dim, keepdim=True)
