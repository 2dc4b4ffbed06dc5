"""The merge of a judgement's lanes, without any sandbox: one stop for all lanes, events in the problem's order,
figures folded over the tests that stand."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from runner import problems
from runner.judging.merge import AFTER_AN_ENDED_RUN, AFTER_THE_FIRST_FAILURE, Merge
from runner.testcase import CaseResult
from runner.verdict import TestResult, TimeFigures

PROBLEM = SimpleNamespace(slug="a-problem", version="v1")
TESTS = [problems.TestSpec(f"test-{index}", {}) for index in range(5)]


def merged():
    events = []
    return Merge(PROBLEM, "cpu", TESTS, events.append, seed_index=3), events


def passed(index: int, **figures) -> CaseResult:
    return CaseResult(TestResult(TESTS[index].name, "passed"), **figures)


def failed(index: int, status: str = "runtime_error") -> CaseResult:
    return CaseResult(TestResult(TESTS[index].name, status, f"{status} in {TESTS[index].name}"))


def shown_tests(events):
    return [(event["index"], event["status"], event["message"]) for event in events if event["event"] == "test"]


def on_another_thread(job):
    with ThreadPoolExecutor(1) as executor:
        executor.submit(job).result()


def test_one_lane_s_tests_are_passed_on_as_they_settle_and_a_stop_skips_the_rest():
    merge, events = merged()
    merge.begin()
    merge.settle(0, passed(0))
    assert shown_tests(events) == [(0, "passed", "")]
    merge.settle(1, failed(1, "wrong_answer"))  # a failure that does not end the process
    merge.settle(2, failed(2), skip_rest=AFTER_AN_ENDED_RUN)
    assert shown_tests(events) == [(0, "passed", ""), (1, "wrong_answer", "wrong_answer in test-1"),
                                   (2, "runtime_error", "runtime_error in test-2"),
                                   (3, "skipped", AFTER_AN_ENDED_RUN), (4, "skipped", AFTER_AN_ENDED_RUN)]
    verdict = merge.verdict(sandbox="bubblewrap")
    assert verdict.verdict == "wrong_answer" and verdict.seed_index == 3 and verdict.sandbox == "bubblewrap"
    assert [test.status for test in verdict.tests] == ["passed", "wrong_answer", "runtime_error", "skipped", "skipped"]
    assert events[0] == {"event": "started", "problem": "a-problem", "device": "cpu", "total": 5}
    assert events[-1] == {"event": "finished", "verdict": "wrong_answer"}
    assert all(event["total"] == 5 for event in events[1:-1])


def test_a_later_lane_s_tests_wait_for_every_earlier_test_and_a_stop_there_drops_them_unseen():
    merge, events = merged()
    stops = []
    merge.on_stop(stops.append)
    on_another_thread(lambda: (merge.settle(3, passed(3)), merge.settle(4, failed(4), skip_rest=AFTER_AN_ENDED_RUN)))
    assert stops == [4]
    assert shown_tests(events) == []  # settled on another lane's thread, and after tests not settled yet
    merge.settle(0, passed(0))
    merge.settle(1, failed(1), skip_rest=AFTER_AN_ENDED_RUN)
    assert stops == [4, 1]
    merge.settle(2, passed(2))  # judged after the stop, by a lane that had not seen it yet: dropped
    verdict = merge.verdict(sandbox="")
    assert shown_tests(events) == [(0, "passed", ""), (1, "runtime_error", "runtime_error in test-1"),
                                   (2, "skipped", AFTER_AN_ENDED_RUN), (3, "skipped", AFTER_AN_ENDED_RUN),
                                   (4, "skipped", AFTER_AN_ENDED_RUN)]
    assert [test.status for test in verdict.tests] == ["passed", "runtime_error", "skipped", "skipped", "skipped"]
    assert merge.stopped_before(2) and not merge.stopped_before(1)


def test_a_stop_later_than_the_one_standing_changes_nothing():
    merge, events = merged()
    stops = []
    merge.on_stop(stops.append)
    merge.settle(0, failed(0, "wrong_answer"), skip_rest=AFTER_THE_FIRST_FAILURE)
    on_another_thread(lambda: merge.settle(3, failed(3), skip_rest=AFTER_AN_ENDED_RUN))
    assert stops == [0]
    verdict = merge.verdict(sandbox="")
    assert [(test.status, test.message) for test in verdict.tests[1:]] == [("skipped", AFTER_THE_FIRST_FAILURE)] * 4


def test_the_first_result_a_test_settles_with_stands():
    merge, _ = merged()
    merge.settle(0, passed(0))
    merge.settle(0, failed(0), skip_rest=AFTER_AN_ENDED_RUN)
    assert not merge.stopped_before(4)


def test_figures_are_folded_over_the_tests_that_stand_in_the_problem_s_order():
    early = TimeFigures(user_ms=1.0, reference_ms=1.0, ratio=1.0)
    late = TimeFigures(user_ms=2.0, reference_ms=1.0, ratio=2.0)

    def judged(stop_at_2: bool):
        merge, _ = merged()
        # Settled in the order two lanes might: the later lane's tests first.
        on_another_thread(lambda: (
            merge.settle(3, passed(3, time=late, user_peak_bytes=99, reference_peak_bytes=1, memory_limit_bytes=100)),
            merge.settle(4, passed(4))))
        merge.settle(0, passed(0, user_peak_bytes=50, reference_peak_bytes=25, memory_limit_bytes=100))
        merge.settle(1, passed(1, time=early, user_peak_bytes=50, reference_peak_bytes=40, memory_limit_bytes=100))
        merge.settle(2, failed(2) if stop_at_2 else passed(2), skip_rest=AFTER_AN_ENDED_RUN if stop_at_2 else None)
        return merge.verdict(sandbox="")

    whole = judged(stop_at_2=False)
    assert whole.verdict == "accepted"
    assert whole.time == late  # the last timed test's
    assert (whole.memory.user_peak_bytes, whole.memory.reference_peak_bytes) == (99, 1)  # the closest to its limit
    stopped = judged(stop_at_2=True)
    assert stopped.verdict == "runtime_error"
    assert stopped.time == early
    # Of the two tests as close to their limits, the later, with its own reference peak.
    assert (stopped.memory.user_peak_bytes, stopped.memory.reference_peak_bytes) == (50, 40)


def test_events_reach_the_caller_on_the_merge_s_thread_only():
    events, threads = [], set()
    merge = Merge(PROBLEM, "cpu", TESTS, lambda event: (threads.add(threading.get_ident()), events.append(event)),
                  seed_index=None)
    with ThreadPoolExecutor(1) as executor:
        lane = executor.submit(lambda: [merge.settle(index, passed(index)) for index in range(1, 5)])
        merge.settle(0, passed(0))
        merge.wait([lane])
    assert [event["index"] for event in events] == list(range(5))
    assert threads == {threading.get_ident()}
