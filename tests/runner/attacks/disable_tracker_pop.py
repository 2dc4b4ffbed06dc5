# expect: forbidden
# message: removed the judge's operator watch
# Pops every dispatch mode, the judge's memory and operator watch included, and leaves them off.
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode, _pop_mode


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    while _get_current_dispatch_mode() is not None:
        _pop_mode()
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
