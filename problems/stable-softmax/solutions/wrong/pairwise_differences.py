# expect: memory_limit_exceeded
# y_i = 1 / sum_j exp(x_j - x_i) never overflows, but it builds every pairwise difference: an n×n
# temporary per row, n times the memory a softmax needs.
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    last = x.movedim(dim, -1)
    differences = last.unsqueeze(-2) - last.unsqueeze(-1)
    return (1.0 / differences.clamp(max=80).exp().sum(-1)).movedim(-1, dim)
