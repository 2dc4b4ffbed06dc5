"""Known-wrong solutions that end their process (a crash, a memory limit, a time limit) get the same verdict and the
same per-test statuses in two lanes as in one, in every kind of problem: the judge's plan, lanes and merge are
the same for every problem, and each kind fails in code of its own (its checker and its driver), so each kind's
crash and memory verdicts are judged in the problems JUDGED_HERE names, the kind's cheapest to judge. A time
verdict is judged in each of the two ways the judge reaches one whatever the problem (a call killed on its wall
clock, timed rounds over the ratio), each where it is cheapest: a solution slow enough for a time verdict passes
its earlier tests slowly too. One problem of each kind costs the suite a minute where every problem cost three.

The plan gives a second lane only where each has enough work to pay for its process (JudgeOptions.min_lane_s);
here that least is 0, so every problem of one process is split wherever its tests allow, and the stop one
failure makes is checked across the seam in each.
"""

from __future__ import annotations

import pytest

from runner import list_problems
from runner.cache import ReferenceCache

from .conftest import Started, judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, pytest.mark.takes_minutes, requires_bubblewrap]

ENDS_ITS_PROCESS = ("runtime_error", "time_limit_exceeded", "memory_limit_exceeded")
SEED_INDEX = 5
# Each kind's problems whose first known-wrong solution of each verdict is judged here, in order (a verdict the
# first lacks comes from the next).
JUDGED_HERE = {"function": ("stable-softmax", "causal-mask"), "stateful": ("paged-kv-cache", "adamw"),
               "wrapper": ("checkpointed-block",), "sampler": ("speculative-decoding",), "module": ("mhsa",),
               "kernel": ("triton-vector-add",)}
# The time verdicts judged here: causal-mask's is a call killed on its wall clock (10 s for one judgement, where
# mhsa's takes 33), paged-kv-cache's timed rounds over the ratio (4 s).
TIMED_OUT = {"causal-mask", "paged-kv-cache"}


def _ending(problem) -> list:
    """problem's known-wrong solutions that end their process, in name order, with what each declares."""
    return [(path, expected) for path, expected, _ in sorted(problem.solutions()) if expected in ENDS_ITS_PROCESS]


def _cases():
    problems = {problem.slug: problem for problem in list_problems()}
    for slugs in JUDGED_HERE.values():
        seen = set()
        for slug in slugs:
            problem = problems[slug]
            for path, expected in _ending(problem):
                if expected not in seen and (expected != "time_limit_exceeded" or slug in TIMED_OUT):
                    seen.add(expected)
                    yield pytest.param(problem, path, id=f"{slug}/{path.name}")


def test_every_kind_whose_problems_have_such_a_solution_is_judged_here():
    """A new kind, or a kind's first crash or memory verdict, is judged in two lanes as soon as it ships."""
    judged = {(problem.kind, expected) for problem, path in (case.values for case in _cases())
              for expected in [dict(_ending(problem))[path]]}
    shipped = {(problem.kind, expected) for problem in list_problems()
               if problem.world_size == 1 and problem.needs != "cuda"
               for _, expected in _ending(problem) if expected != "time_limit_exceeded"}
    assert shipped - judged == set(), "name a problem of each such kind in JUDGED_HERE"


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
