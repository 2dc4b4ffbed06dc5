# expect: runtime_error
# message: IndexError
# Flattens every dimension but the normalised one into rows with flatten(0, -2): right for any matrix or
# batch of them, but a 1-D input has no leading dimension to flatten, and flatten(0, -2) raises on it.
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    moved = x.movedim(dim, -1)
    rows = moved.flatten(0, -2)
    e = (rows - rows.amax(dim=1, keepdim=True)).exp()
    return (e / e.sum(dim=1, keepdim=True)).reshape(moved.shape).movedim(-1, dim)
