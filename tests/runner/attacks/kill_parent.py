# expect: runtime_error
# message: killed by signal 9
# Kills its parent, then everything else it may signal, then waits for the fallout. The parent is the
# sandbox's own bubblewrap, whose death takes the submission with it; nothing outside the sandbox's pid
# namespace can be reached, so the judge carries on and records the crash.
import os
import signal
import time

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    for target in (os.getppid(), -1):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(2)
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
