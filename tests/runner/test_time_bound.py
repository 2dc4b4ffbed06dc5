"""The time judged is within 1.1x of the CPU time a call really took, wherever the submission spent it.

Far over the limit: each submission is a correct softmax that burns a fixed amount of CPU time per call (measured by its own
thread's clock, so the amount does not depend on how busy the machine is): in the calling thread (the
control, whose report is honest), in a thread started at import, in a thread started and ended within each
call, or in the calling thread after making the harness's clock run at half speed. The figure judged for
each trick must be at least the control's divided by 1.1, so no trick stretches the limit by more than that.

Near the limit: the same work at about 1.2 times a fixed limit runs every round of both sets, and is still
rejected wherever it is spent, so every round's figure counts the calls that round made.

stable-softmax is judged here as a problem whose submissions may start threads, as the ranks' problems and
every problem on a GPU are (on the CPU it refuses them, runner/harness/confine.py): the outside view must
hold wherever threads run.
"""

from __future__ import annotations

import pytest

from dataclasses import replace

from runner import load_problem
from runner.testcase import DECISIVE_TIME_FACTOR

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


def judged_ms(way: str, problem=None, burn_ms: float = BURN_MS):
    problem = problem or replace(load_problem("stable-softmax"), threads=True)
    verdict = judge_for_tests(problem, SOURCE.format(burn_ms=burn_ms, way=way), tests="all")
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


# A limit that holds whatever the reference takes: its cap, 100 ms a call, far below 1000 times the reference.
# Three calls a round, as most problems time, so a round's warm-up call, counted where none was made, would
# spread each later round's CPU over four calls. The driver calls softmax twice a call (the forward, then again
# with grad for the backward), each burning 0.55 times the cap; with the call's own work (3 to 10 ms on a busy
# machine) a call takes 1.13 to 1.2 times the cap: over the limit, under three times it (so no round decides
# alone), and under it at three quarters.
NEAR_CAP_MS = 100.0
NEAR_BURN_MS = 0.55 * NEAR_CAP_MS


@pytest.fixture(scope="module")
def capped_softmax():
    problem = load_problem("stable-softmax")
    return replace(problem, threads=True, limits=replace(problem.limits, time_ratio=1000.0,
                                                           time_cap_ms=NEAR_CAP_MS, timed_iterations=3))


@pytest.mark.parametrize("way", ["calling-thread", "helper", "thread-per-call", "half-clock"])
def test_work_near_the_limit_runs_every_round_of_both_sets_and_is_rejected_wherever_it_is_spent(way, capped_softmax):
    verdict, timed = judged_ms(way, capped_softmax, NEAR_BURN_MS)
    assert verdict.verdict == "time_limit_exceeded", timed.message
    assert "the better of two sets of 3 rounds" in timed.message and "after round" not in timed.message
    assert NEAR_CAP_MS < timed.time_ms < DECISIVE_TIME_FACTOR * NEAR_CAP_MS, timed.message
