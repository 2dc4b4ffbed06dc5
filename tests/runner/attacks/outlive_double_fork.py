# expect: accepted
# Tries to leave a daemon behind (setsid and a double fork) and answers correctly: the verdict stands. The
# judge refuses the fork; were one to get through, the daemon must still not survive the run.
import os
import time

import torch

try:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(3600)
        os._exit(0)
except PermissionError:
    pass


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
