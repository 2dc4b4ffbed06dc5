# expect: accepted
# Leaves a daemon behind (setsid and a double fork) and answers correctly: the verdict stands, and the
# daemon must not survive the run.
import os
import time

import torch

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(3600)
    os._exit(0)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
