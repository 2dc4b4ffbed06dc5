# expect: time_limit_exceeded
# message: while the file was loaded
# problem: ring-allreduce
# tests: all
# Sleeps at import in every rank. The load's timeout once grew with the ranks the run starts (nine here, 190 s)
# past the run's own wall clock (120 s), and the judge was held that long; the ranks are now started before the
# load, at the judge's cost, and the import gets only its own timeout within the wall clock.
import time

import torch
import torch.distributed as dist

time.sleep(600)


def ring_all_reduce(tensor: torch.Tensor) -> None:
    dist.all_reduce(tensor)
