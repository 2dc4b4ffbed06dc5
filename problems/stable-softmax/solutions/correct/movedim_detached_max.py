# expect: accepted
# Moves dim to the end and back; the shift is detached, which leaves the gradient exact because softmax
# is invariant to any per-row constant.
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    last = x.movedim(dim, -1)
    shift = last.detach().max(dim=-1, keepdim=True).values
    e = (last - shift).exp()
    return (e / e.sum(-1, keepdim=True)).movedim(-1, dim)
