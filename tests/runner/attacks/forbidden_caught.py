# expect: forbidden
# message: aten::_softmax
# Tries the forbidden kernel, swallows the error and falls back: the attempt is what counts.
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    try:
        return x.softmax(dim)
    except Exception:
        e = (x - x.amax(dim, keepdim=True)).exp()
        return e / e.sum(dim, keepdim=True)
