"""A judge in two lanes (JudgeOptions.lanes): the same verdict, test by test, as one run, from two user processes.

checkpointed-block is the problem that needs it: seventeen checked calls, three of them memory tests under the
operator watch, and a timed test whose rounds call both processes. Its lanes are judged here against one lane's
judgement of the same submission: correct, wrong, and ending its process (a crash, a time limit, a memory
limit) in the first lane, in the second, or in both.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from runner import load_problem
from runner.cache import ReferenceCache

from .conftest import ROOT, Started, judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, requires_bubblewrap]

BLOCK = ROOT / "problems" / "checkpointed-block"
# Where a submission built from the reference fails, as a condition on its forward's call. The plan gives the
# second lane the last hidden tests, timed-step-8 among them (the first lane may not hold a timed test), and
# the first lane the sample tests and the first hidden tests.
FAILS_WHERE = {
    # no-grad-training-mode, the fourth test and the first hidden one: in training mode, under no_grad.
    "first": "self.training and not torch.is_grad_enabled()",
    # timed-step-8, whose checked call comes before its rounds: x of 2 x 64 x 128, no other test's.
    "second": "tuple(x.shape) == (2, 64, 128)",
}
FAILS_WHERE["both"] = f"({FAILS_WHERE['first']}) or ({FAILS_WHERE['second']})"
FIRST_FAILING = {"first": "no-grad-training-mode", "second": "timed-step-8", "both": "no-grad-training-mode"}
# How it fails, each a failure that ends its process: the status it gets, and what it does.
FAILURES = {
    "crash": ("runtime_error", "os._exit(3)"),
    "time": ("time_limit_exceeded", "time.sleep(3600)"),
    # Up to 1.5 GiB a step at a time, against the 1 GiB that FAILING_LIMITS allows the whole sandbox: the
    # watchdog, which counts the process's own pages too, kills it some steps before its address space (1 GiB
    # more than it mapped at the load) runs out.
    "memory": ("memory_limit_exceeded", "for _ in range(48):\n"
                                        "            _held.append(torch.ones(32 << 20, dtype=torch.uint8))\n"
                                        "            time.sleep(0.05)"),
}
# What the failures are judged against: a checked call allowed its least (5 s), and a sandbox of 1 GiB, over
# what every process of a correct solution of the problem holds.
FAILING_LIMITS = {"time_cap_ms": 1000, "sandbox_memory_bytes": 1 << 30}


def failing(kind: str, where: str) -> str:
    """The reference, which prints at import and at its first call and fails as kind says where says."""
    return (BLOCK / "reference.py").read_text() + f"""
import os
import time

print("loaded")
_forward, _called, _held = CheckpointedBlock.forward, [], []


def _forward_or_fail(self, x):
    if not _called:
        print("first call")
        _called.append(True)
    if {FAILS_WHERE[where]}:
        {FAILURES[kind][1]}
    return _forward(self, x)


CheckpointedBlock.forward = _forward_or_fail
"""


def judged(source: bytes, cache: ReferenceCache, lanes: int, problem="checkpointed-block"):
    events, started = [], Started()
    verdict = judge_for_tests(problem, source, cache=cache, lanes=lanes, seed_index=5,
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


@pytest.fixture(scope="module")
def failed(cache, reference_runs):
    """judge(kind, where): the failing submission judged in two lanes and in one, each judged once a module."""
    problem = load_problem("checkpointed-block")
    problem = replace(problem, limits=replace(problem.limits, **FAILING_LIMITS))
    judged_both = {}

    def judge(kind: str, where: str):
        if (kind, where) not in judged_both:
            source = failing(kind, where).encode()
            judged_both[kind, where] = judged(source, cache, 2, problem), judged(source, cache, 1, problem)
        return judged_both[kind, where]

    return judge


def shown(events):
    return [(event["event"], event.get("index"), event.get("name"), event.get("status"), event.get("message"))
            for event in events]


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
    assert [event["index"] for event in tests] == list(range(total))  # in the problem's order, as one lane's
    assert all(lanes.tests[event["index"]].name == event["name"] for event in tests)


def test_a_wrong_solution_fails_the_same_tests_with_the_same_words_in_two_lanes(cache, reference_runs):
    source = (BLOCK / "solutions" / "wrong" / "no_checkpointing.py").read_bytes()
    lanes, _, processes = judged(source, cache, lanes=2)
    one, _, _ = judged(source, cache, lanes=1)
    assert processes == 3
    assert lanes.verdict == one.verdict == "memory_limit_exceeded"
    assert [(t.name, t.status, t.message) for t in lanes.tests] == [(t.name, t.status, t.message) for t in one.tests]


def test_a_process_that_dies_in_the_second_lane_fails_there_and_its_output_is_not_shown(failed):
    (lanes, _, processes), (one, _, _) = failed("crash", "second")
    assert processes == 3
    assert lanes.verdict == one.verdict == "runtime_error"
    assert [(t.name, t.status) for t in lanes.tests] == [(t.name, t.status) for t in one.tests]
    assert lanes.tests[-1].name == "timed-step-8" and lanes.tests[-1].status == "runtime_error"
    # The first lane's process printed at its load and its first (sample) call; the second's prints are not shown.
    assert lanes.stdout.count("loaded") == 1 and lanes.stdout.count("first call") == 1


@pytest.mark.parametrize("where", ["first", "second", "both"])
@pytest.mark.parametrize("kind", ["crash", "time", "memory"])
def test_a_failure_that_ends_a_process_stops_every_lane_as_it_stops_one(failed, kind, where):
    """Whichever lane's process ends first, the tests after the earliest such failure, in the problem's order,
    are skipped in every lane: the verdict, each test's status and message, the figures and the events are one
    lane's."""
    (lanes, lane_events, processes), (one, one_events, _) = failed(kind, where)
    status = FAILURES[kind][0]
    assert processes == 3  # two users' processes and the timed test's reference
    assert one.verdict == status
    assert [t.name for t in one.tests if t.status not in ("passed", "skipped")] == [FIRST_FAILING[where]]
    assert lanes.verdict == one.verdict
    assert [(t.name, t.status, t.message) for t in lanes.tests] == [(t.name, t.status, t.message) for t in one.tests]
    assert (lanes.time, lanes.memory) == (one.time, one.memory)
    assert shown(lane_events) == shown(one_events)
    assert [event["index"] for event in lane_events[1:-1]] == list(range(len(one.tests)))
