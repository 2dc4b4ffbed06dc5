"""A judge in two lanes (JudgeOptions.lanes): the same verdict, test by test, as one run, from two user processes.

checkpointed-block is the problem that needs it: seventeen checked calls, three of them memory tests under the
operator watch, and a timed test whose rounds call both processes.
"""

from __future__ import annotations

import pytest

from runner import load_problem
from runner.cache import ReferenceCache
from runner.client import Harness

from .conftest import ROOT, judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, requires_bubblewrap]

BLOCK = ROOT / "problems" / "checkpointed-block"
# Prints at import and at its first call, and dies in the timed test's calls (x of 2 x 64 x 128, no other
# test's), which the second lane always holds: the first may not hold a timed test.
DIES_IN_TIMED = (BLOCK / "reference.py").read_text() + '''
import os

print("loaded")
_forward, _called = CheckpointedBlock.forward, []


def _forward_or_die(self, x):
    if not _called:
        print("first call")
        _called.append(True)
    if tuple(x.shape) == (2, 64, 128):
        os._exit(3)
    return _forward(self, x)


CheckpointedBlock.forward = _forward_or_die
'''


class Started:
    """start_harness that counts the processes a judge starts."""

    def __init__(self):
        self.count = 0

    def __call__(self, *args, **kwargs):
        self.count += 1
        return Harness(*args, **kwargs)


def judged(source: bytes, cache: ReferenceCache, lanes: int):
    events, started = [], Started()
    verdict = judge_for_tests("checkpointed-block", source, cache=cache, lanes=lanes, seed_index=5,
                              start_harness=started, on_event=events.append)
    return verdict, events, started.count


@pytest.fixture(scope="module")
def cache():
    return ReferenceCache()


@pytest.fixture(scope="module")
def reference_runs(cache):
    source = (BLOCK / "reference.py").read_bytes()
    uncached = judged(source, cache, lanes=2)
    hits_before = cache.hits
    cached = judged(source, cache, lanes=2)
    cached_hits = cache.hits - hits_before
    return uncached, cached, judged(source, cache, lanes=1), cached_hits


def test_a_run_whose_reference_results_are_not_cached_stays_in_one_lane(reference_runs):
    (verdict, _, processes), _, _, _ = reference_runs
    assert verdict.verdict == "accepted", [t for t in verdict.tests if t.status != "passed"]
    assert processes == 2  # the user's and the reference's


def test_a_cached_run_in_two_lanes_gives_one_runs_verdict_test_by_test(reference_runs):
    _, (lanes, events, processes), (one, _, one_processes), hits = reference_runs
    assert (processes, one_processes) == (3, 2)  # two users' processes and the timed test's reference
    total = len(load_problem("checkpointed-block").selected_tests("all"))
    assert hits == total  # each test's reference result looked up once, by the plan, and handed to its lane
    assert lanes.verdict == one.verdict == "accepted"
    assert [(t.name, t.status) for t in lanes.tests] == [(t.name, t.status) for t in one.tests]
    assert lanes.seed_index == one.seed_index == 5
    assert lanes.time.user_ms > 0 and lanes.time.reference_ms > 0
    assert lanes.memory.user_peak_bytes == one.memory.user_peak_bytes  # the same test's figures
    assert events[0] == {"event": "started", "problem": "checkpointed-block", "device": "cpu", "total": total}
    assert events[-1] == {"event": "finished", "verdict": "accepted"}
    tests = events[1:-1]
    assert all(event["event"] == "test" and event["total"] == total for event in tests)
    assert sorted(event["index"] for event in tests) == list(range(total))
    assert all(lanes.tests[event["index"]].name == event["name"] for event in tests)


def test_a_wrong_solution_fails_the_same_tests_with_the_same_words_in_two_lanes(cache, reference_runs):
    source = (BLOCK / "solutions" / "wrong" / "no_checkpointing.py").read_bytes()
    lanes, _, processes = judged(source, cache, lanes=2)
    one, _, _ = judged(source, cache, lanes=1)
    assert processes == 3
    assert lanes.verdict == one.verdict == "memory_limit_exceeded"
    assert [(t.name, t.status, t.message) for t in lanes.tests] == [(t.name, t.status, t.message) for t in one.tests]


def test_a_process_that_dies_in_the_second_lane_fails_there_and_its_output_is_not_shown(cache, reference_runs):
    lanes, _, processes = judged(DIES_IN_TIMED.encode(), cache, lanes=2)
    one, _, _ = judged(DIES_IN_TIMED.encode(), cache, lanes=1)
    assert processes == 3
    assert lanes.verdict == one.verdict == "runtime_error"
    assert [(t.name, t.status) for t in lanes.tests] == [(t.name, t.status) for t in one.tests]
    assert lanes.tests[-1].name == "timed-step-8" and lanes.tests[-1].status == "runtime_error"
    # The first lane's process printed at its load and its first (sample) call; the second's prints are not shown.
    assert lanes.stdout.count("loaded") == 1 and lanes.stdout.count("first call") == 1
