"""The time judged is within 1.1x of the CPU time a call really took, wherever the submission spent it.

Each submission is a correct softmax that burns a fixed amount of CPU time per call (measured by its own
thread's clock, so the amount does not depend on how busy the machine is): in the calling thread (the
control, whose report is honest), in a thread started at import, in a thread started and ended within each
call, or in the calling thread after making the harness's clock run at half speed. The figure judged for
each trick must be at least the control's divided by 1.1, so no trick stretches the limit by more than that.
"""

from __future__ import annotations

import pytest

from .conftest import judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, requires_bubblewrap]

# Well past stable-softmax's limit, five times a reference that takes 2 to 4 ms a call (forward and backward,
# under the operator watch): at 15 ms the control sat on the limit and was accepted when the reference ran slow.
BURN_MS = 60
BOUND = 1.1

SOURCE = '''
import sys
import threading
import time

import torch

_clock = time.thread_time_ns


def _burn():
    deadline = _clock() + {burn_ms} * 1_000_000
    while _clock() < deadline:
        pass


_job, _done = threading.Semaphore(0), threading.Semaphore(0)


def _helper():
    while True:
        _job.acquire()
        _burn()
        _done.release()


WAY = {way!r}
if WAY == "helper":
    threading.Thread(target=_helper, daemon=True).start()
if WAY == "half-clock":
    for module in list(sys.modules.values()):
        if hasattr(module, "thread_clock_ns"):
            module.thread_clock_ns = lambda: _clock() // 2


def softmax(x, dim=-1):
    if WAY == "helper":
        _job.release()
        _done.acquire()
    elif WAY == "thread-per-call":
        worker = threading.Thread(target=_burn)
        worker.start()
        worker.join()
    else:
        _burn()
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
'''


def judged_ms(way: str):
    verdict = judge_for_tests("stable-softmax", SOURCE.format(burn_ms=BURN_MS, way=way), tests="all")
    timed = [test for test in verdict.tests if test.name.startswith("timed")]
    assert timed and timed[0].time_ms, [(t.name, t.status, t.message[:200]) for t in verdict.tests]
    return verdict, timed[0]


@pytest.fixture(scope="module")
def control_ms() -> float:
    verdict, timed = judged_ms("calling-thread")
    assert verdict.verdict == "time_limit_exceeded", timed.message
    assert timed.time_ms >= BURN_MS
    return timed.time_ms


@pytest.mark.parametrize("way", ["helper", "thread-per-call", "half-clock"])
def test_work_hidden_from_the_calling_threads_clock_is_judged_within_the_bound(way, control_ms):
    verdict, timed = judged_ms(way)
    assert verdict.verdict == "time_limit_exceeded", timed.message
    assert "observed from outside the sandbox" in timed.message
    assert timed.time_ms >= control_ms / BOUND, (timed.time_ms, control_ms)
