# expect: time_limit_exceeded
# message: observed from outside the sandbox
# tests: all
# Burns 40 ms of CPU per call (the reference needs about 2), after making every clock it can reach,
# the judge's own included, stand still. It counts its own thread's CPU time, not the wall clock's: on a busy
# machine 40 ms of wall clock can be a fraction of that in CPU, which no judge should call too slow.
import sys
import time

import torch

_real_thread_time = time.thread_time


def _frozen(*args, **kwargs):
    return 0


for name in ("perf_counter", "perf_counter_ns", "thread_time", "thread_time_ns", "process_time",
             "process_time_ns", "monotonic", "monotonic_ns", "time", "time_ns"):
    setattr(time, name, _frozen)
for module in list(sys.modules.values()):
    for name in ("clock_ns", "thread_clock_ns", "cpu_clock_ns"):
        if hasattr(module, name):
            setattr(module, name, _frozen)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    deadline = _real_thread_time() + 0.04
    while _real_thread_time() < deadline:
        pass
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
