# expect: wrong_answer
# message: modified in place
# tests: all
# Shifts its input in place, which softmax does not notice, but only in timed calls, which once were never checked
# for changed inputs. It tells them apart by the order of the calls: the timed test's shape is public
# (problem.toml), its checked call comes first under a watch of its own, and the timed calls come after it under
# another, so a second watch seen with that shape is a timed request's.
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode

TIMED_SHAPE = (512, 256)
_first_watch = []


def _timed(x: torch.Tensor) -> bool:
    if tuple(x.shape) != TIMED_SHAPE:
        return False
    watch = _get_current_dispatch_mode()
    if not _first_watch:
        _first_watch.append(watch)  # held, so that no later watch can have its id
    return watch is not _first_watch[0]


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    if _timed(x):
        with torch.no_grad():
            x.sub_(x.amax(dim, keepdim=True))
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
