"""Every problem's known-wrong solutions that end their process (a crash, a memory limit, a time limit) get the
same verdict and the same per-test statuses in two lanes as in one: the first of each problem's solutions with
a crash or a memory verdict, where each kind of problem fails in code of its own, and a time verdict in each
of the two ways the judge reaches one whatever the problem (a call killed on its wall clock, timed rounds over
the ratio), each where it is cheapest: a solution slow enough for a time verdict passes its earlier tests
slowly too, and the other five cost the suite three minutes (31 pairs of judgements, not 50).

The plan gives a second lane only where each has enough work to pay for its process (JudgeOptions.min_lane_s);
here that least is 0, so every problem of one process is split wherever its tests allow, and the stop one
failure makes is checked across the seam in each.
"""

from __future__ import annotations

import pytest

from runner import list_problems
from runner.cache import ReferenceCache
from runner.client import Harness

from .conftest import judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, pytest.mark.takes_minutes, requires_bubblewrap]

ENDS_ITS_PROCESS = ("runtime_error", "time_limit_exceeded", "memory_limit_exceeded")
SEED_INDEX = 5
# The time verdicts judged here: causal-mask's is a call killed on its wall clock (10 s for one judgement, where
# mhsa's takes 33), gqa-kv-cache's and paged-kv-cache's are timed rounds over the ratio (4 s each).
TIMED_OUT = {"causal-mask", "gqa-kv-cache", "paged-kv-cache"}


def _cases():
    for problem in list_problems():
        if problem.world_size != 1 or problem.needs == "cuda":
            continue
        seen = set() if problem.slug in TIMED_OUT else {"time_limit_exceeded"}
        for path, expected, _ in sorted(problem.solutions()):
            if expected in ENDS_ITS_PROCESS and expected not in seen:
                seen.add(expected)
                yield pytest.param(problem, path, id=f"{problem.slug}/{path.name}")


class Started:
    """start_harness that counts the processes a judge starts."""

    def __init__(self):
        self.count = 0

    def __call__(self, *args, **kwargs):
        self.count += 1
        return Harness(*args, **kwargs)


_CACHES: dict[str, ReferenceCache] = {}


def _cache_with_every_reference_result(problem) -> ReferenceCache:
    """A cache holding the reference's result of every test on the seed: the plan splits only what it can cost."""
    if problem.slug not in _CACHES:
        cache = _CACHES[problem.slug] = ReferenceCache()
        verdict = judge_for_tests(problem, (problem.path / "reference.py").read_bytes(), cache=cache,
                                  seed_index=SEED_INDEX)
        assert verdict.verdict == "accepted", [t for t in verdict.tests if t.status != "passed"]
    return _CACHES[problem.slug]


@pytest.mark.parametrize(("problem", "path"), list(_cases()))
def test_a_solution_that_ends_its_process_is_judged_alike_in_one_lane_and_in_two(problem, path):
    cache = _cache_with_every_reference_result(problem)
    source = path.read_bytes()
    one_started, two_started = Started(), Started()
    one = judge_for_tests(problem, source, cache=cache, seed_index=SEED_INDEX, start_harness=one_started)
    two = judge_for_tests(problem, source, cache=cache, seed_index=SEED_INDEX, start_harness=two_started,
                          lanes=2, min_lane_s=0.0)
    assert two_started.count > one_started.count  # a second user process: the judgement was split
    assert one.verdict in ENDS_ITS_PROCESS
    assert two.verdict == one.verdict
    assert [test.name for test in two.tests] == [test.name for test in one.tests]
    compared = len(one.tests)
    if one.verdict in ("time_limit_exceeded", "memory_limit_exceeded"):
        # Which test a slow solution first runs out of time on depends on the machine's load (two lanes run two
        # processes at once), and which test a greedy one first runs out of memory on depends on what ran before
        # it in its process (the process's resident growth counts, and lanes split the tests between processes):
        # each judgement must stop there, whichever it is, and agree on every test before.
        stops = [first_stop(one), first_stop(two)]
        for verdict, stop in zip((one, two), stops):
            assert [test.status for test in verdict.tests[stop + 1:]] == ["skipped"] * (len(verdict.tests) - stop - 1)
        compared = min(stops)
    differing = [(a.name, a.status, b.status, a.message, b.message)
                 for a, b in zip(one.tests[:compared], two.tests[:compared]) if a.status != b.status]
    assert differing == []


def first_stop(verdict) -> int:
    """The index of the first test whose failure ended its process."""
    return next(index for index, test in enumerate(verdict.tests) if test.status in ENDS_ITS_PROCESS)
