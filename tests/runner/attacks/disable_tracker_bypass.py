# expect: memory_limit_exceeded
# message: resident memory grew
# tests: all
# Steps outside the judge's tensor tracker for a huge temporary and puts the tracker back, so the
# tracker alone would see a lean call; the judge's outside view of resident memory does not.
import torch
from torch.utils._python_dispatch import _pop_mode, _push_mode


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    mode = _pop_mode()
    try:
        waste = torch.ones(x.numel() * 1500, dtype=x.dtype)
        total = waste.sum()
    finally:
        _push_mode(mode)
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True) + 0 * total
