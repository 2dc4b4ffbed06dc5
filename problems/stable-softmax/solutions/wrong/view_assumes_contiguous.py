# expect: runtime_error
# message: RuntimeError
# Views x as rows of its last dimension, and makes a contiguous copy only after moving another dimension
# there itself. A 2-D transposed input happens to be viewable as its own rows; a 3-D one is not, and view
# raises: the input's layout is the caller's, so use reshape (or contiguous() on every path).
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    last = dim in (-1, x.dim() - 1)
    moved = x if last else x.transpose(dim, -1).contiguous()
    rows = moved.view(-1, moved.size(-1))
    e = (rows - rows.amax(dim=1, keepdim=True)).exp()
    y = (e / e.sum(dim=1, keepdim=True)).view(moved.shape)
    return y if last else y.transpose(dim, -1)
