# expect: runtime_error
# message: no other process visible
# Looks for a process outside its own sandbox: the zygote its sandbox was forked from, or a sandbox forked
# beside it (a warm pool's, waiting for the next submission). Any process its /proc lists, or any pid it may
# name to kill(2) (whether or not the signal would be allowed), but its sandbox's init, its parent and itself,
# counts as found.
import os

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    own = {1, os.getppid(), os.getpid()}
    others = [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) not in own]
    for pid in range(1, 1 << 16):
        if pid in own:
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        except PermissionError:
            pass
        others.append(pid)
    if others:
        e = (x - x.amax(dim, keepdim=True)).exp()
        return e / e.sum(dim, keepdim=True)
    raise LookupError("no other process visible")
