# expect: time_limit_exceeded
# message: observed from outside the sandbox
# tests: all
# threads: allowed
# Correct and differentiable, but hands 40 ms of extra work per call to another thread, which the
# calling thread's clock does not see; the judge's outside view of the sandbox's CPU time does.
import threading

import torch

_done = threading.Semaphore(0)


def _burn():
    total = 0
    for i in range(1_500_000):
        total += i
    _done.release()


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    worker = threading.Thread(target=_burn)
    worker.start()
    worker.join()
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
