# expect: memory_limit_exceeded
# message: during the timed calls
# tests: all
# Holds 192 MiB of NumPy, out of the tensor tracker's sight, but only from its first timed call on, when no memory
# limit was once applied; a checked call sees a correct softmax. Timed calls are told apart as in
# timed_mutates_inputs.py; the process's resident growth during the timed request gives the memory away.
import numpy
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

TIMED_SHAPE = (512, 256)
_first_watch = []
_hoard = []


def _timed(x: torch.Tensor) -> bool:
    if tuple(x.shape) != TIMED_SHAPE:
        return False
    watch = _get_current_dispatch_mode()
    if not _first_watch:
        _first_watch.append(watch)
    return watch is not _first_watch[0]


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    if _timed(x) and not _hoard:
        _hoard.append(numpy.ones(24 << 20))  # 192 MiB of float64, every page written
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
