"""The plan: which lane (a user process over some of the tests) judges which tests.

Pure functions of what they are given, so a plan can be read and tested without any sandbox: the same tests,
costs and rules always make the same lanes, whatever the process judged before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..cache import TIMED_CALL_NS
from ..problems import Limits, TestSpec
from ..testcase import DECISIVE_TIME_FACTOR

# A second lane is worth a process of its own when each lane has at least this much work (seconds of the
# reference's calls): below it, what the lane saves is lost to its load and to the trusted side's threads of
# two lanes sharing the cores with three processes (docs/speed.md).
LANE_MIN_S = 0.8


@dataclass(frozen=True)
class Lane:
    """A user process's share of a judgement: tests, in the problem's order, the first at index start."""

    start: int
    tests: tuple[TestSpec, ...]

    @property
    def indices(self) -> range:
        """Each test's index among all the judgement's tests."""
        return range(self.start, self.start + len(self.tests))


def most_lanes(asked: int, *, device: str, distributed: bool, stops_at_first_failure: bool,
               shared_reference: bool) -> int:
    """How many lanes a judgement may have: as many as asked, but one on CUDA and for a distributed problem
    (a second lane runs on the core the first leaves idle: there is none for them), one where the judge stops
    at the first failure (the other lane's later tests would mostly be skipped), and one with a shared
    reference (`runner check`, which judges two problems at once, one on each core)."""
    if device != "cpu" or distributed or stops_at_first_failure or shared_reference:
        return 1
    return max(1, asked)


def cached_costs(tests: Sequence[TestSpec], answers: Sequence[dict[str, Any] | None],
                 limits: Limits) -> list[float] | None:
    """Each test's work, in seconds of the reference's calls, from the reference's cached answers (answers[i],
    test i's, None where it is not cached); None unless every test's is.

    A checked call costs what the reference's own took (its time_ns). A timed test's rounds call both
    processes, each call as long as the reference's median timed call, cached with the test's answer once the
    test was timed (TIMED_CALL_NS), else as its checked call."""
    costs = []
    for test, answer in zip(tests, answers, strict=True):
        if answer is None:
            return None
        call_s = int(answer.get("time_ns") or 0) / 1e9
        cost = call_s
        if test.timed:
            timed_s = int(answer.get(TIMED_CALL_NS) or 0) / 1e9 or call_s
            cost += timed_s * timed_calls(limits, timed_s)
        costs.append(cost)
    return costs


def timed_calls(limits: Limits, call_s: float) -> int:
    """The calls a timed test's rounds make of both processes together, for a submission as fast as the
    reference: a warm-up each, then every round's iterations each, or only the first round's where that round
    puts it under a third of its limit (runner/testcase.py)."""
    allowed_s = min(limits.time_ratio * call_s, limits.time_cap_ms / 1000)
    rounds = 1 if call_s < allowed_s / DECISIVE_TIME_FACTOR else limits.timed_rounds
    return 2 * (1 + rounds * limits.timed_iterations)


def plan(tests: Sequence[TestSpec], costs: Sequence[float] | None, *, most: int = 2,
         min_lane_s: float = LANE_MIN_S) -> list[Lane]:
    """The tests in lanes: all in one, or in two where most allows it and the costs (cached_costs) are known.

    The second lane is a suffix of the hidden tests; the first holds every test before it, the sample tests
    among them and no timed test, so it needs no reference process. The split chosen is the one whose longer
    lane is shortest, and only where each lane has min_lane_s of work."""
    whole = [Lane(0, tuple(tests))]
    if most < 2 or costs is None:
        return whole
    first_hidden = next((index for index, test in enumerate(tests) if not test.sample), len(tests))
    best = None
    for split in range(max(first_hidden, 1), len(tests)):
        if any(test.timed for test in tests[:split]):
            break
        first, second = sum(costs[:split]), sum(costs[split:])
        if min(first, second) >= min_lane_s and (best is None or max(first, second) < best[0]):
            best = (max(first, second), split)
    if best is None:
        return whole
    split = best[1]
    return [Lane(0, tuple(tests[:split])), Lane(split, tuple(tests[split:]))]
