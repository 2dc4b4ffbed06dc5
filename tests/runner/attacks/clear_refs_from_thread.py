# expect: memory_limit_exceeded
# message: resident memory
# tests: all
# threads: allowed
# Steps outside the judge's tensor tracker for a 600 MiB temporary, as disable_tracker_bypass does, and then
# has a thread write 5 to /proc/self/clear_refs, which would reset the peak resident set (VmHWM) the judge
# reads after the call, so the outside view would see a lean call too. The temporary is made once per
# shape, so the timed test's repeated calls stay quick.
import threading

import torch
from torch.utils._python_dispatch import _pop_mode, _push_mode


def _reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


_shapes = set()


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    total = torch.zeros((), dtype=x.dtype)
    if x.shape not in _shapes:
        _shapes.add(x.shape)
        mode = _pop_mode()
        try:
            waste = torch.ones(150 << 20, dtype=x.dtype)
            total = waste.sum()
            del waste
        finally:
            _push_mode(mode)
    resetter = threading.Thread(target=_reset_peak)
    resetter.start()
    resetter.join()
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True) + 0 * total
