"""A timed test's second set of rounds: when the first set comes out over the limit by less than the decisive
factor, the test is timed again on fresh inputs and the better set judged (the first round alone decides a
figure far over: test_judge.py).

Each submission is a correct softmax that repeats its work some number of times in each call on the timed
test's shape ([512, 256]), so that its cost follows the reference's from machine to machine: a repeat costs
a seventh to a fifth of the reference's forward and backward, and the limit is five times the reference.

A first round far under its limit ends the test: that is also checked here, with a solution whose calls slow
down after it, under a limit of fifteen times the reference. Under five times, a third of the limit is 1.7 times
the reference, and a solution doing the reference's work measures 0.7 to 1.4 times it in one round, now and then
more on a busy machine: the rule would be tested on the noise of a round."""

from __future__ import annotations

from dataclasses import replace

import pytest

from runner import load_problem

from .conftest import judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, requires_bubblewrap]

# Seven to ten times the reference: over its limit, and under three times it.
NEAR_MISS_REPEATS = 50
# Two to three times the reference: under its limit, and over a third of it.
UNDER_LIMIT_REPEATS = 15
# One check of the timed test's output, a warm-up before the first round, then a set of three rounds of five
# calls each; the kit calls softmax twice a call (once for its output, again on leaves for the backward,
# runner/kit/sandbox.py).
FIRST_SET_CALLS = 2 * (1 + 1 + 3 * 5)
FIRST_ROUND_CALLS = 2 * (1 + 1 + 5)
# For the first round far under the limit: a limit of fifteen times the reference, a third of it five times, and
# later calls 28 to 40 times the reference, over it.
WIDE_TIME_RATIO = 15.0
FAR_OVER_REPEATS = 200

SOURCE = """
import torch

_calls = [0]


def softmax(x, dim=-1):
    repeats = 1
    if tuple(x.shape) == (512, 256):
        _calls[0] += 1
        repeats = {repeats} if _calls[0] <= {switch_after} else {repeats_after}
    for _ in range(repeats):
        e = (x - x.amax(dim, keepdim=True)).exp()
        y = e / e.sum(dim, keepdim=True)
    return y
"""


def timed_result(slow_calls: int = 0, *, repeats: int = NEAR_MISS_REPEATS, repeats_after: int = 1,
                 time_ratio: float | None = None):
    """The verdict and the timed test's result of a softmax that repeats its work `repeats` times in its first
    `slow_calls` calls on the timed shape, and `repeats_after` times in every later one; time_ratio replaces the
    problem's limit."""
    source = SOURCE.format(repeats=repeats, switch_after=slow_calls, repeats_after=repeats_after)
    problem = load_problem("stable-softmax")
    if time_ratio is not None:
        problem = replace(problem, limits=replace(problem.limits, time_ratio=time_ratio))
    verdict = judge_for_tests(problem, source, tests="all")
    timed = [test for test in verdict.tests if test.name.startswith("timed")]
    assert timed, [(t.name, t.status, t.message[:200]) for t in verdict.tests]
    return verdict, timed[0]


def test_a_near_miss_is_timed_on_a_second_set_and_still_rejected():
    verdict, timed = timed_result(slow_calls=10**9)
    assert verdict.verdict == "time_limit_exceeded", timed.message
    assert "the better of two sets of 3 rounds" in timed.message, timed.message
    assert "other rounds were not run" not in timed.message


def test_a_set_slowed_by_a_burst_is_timed_again_and_the_better_set_judged():
    # Slow through the first set alone, as a correct solution is beside a burst of the machine's other work.
    verdict, timed = timed_result(slow_calls=FIRST_SET_CALLS)
    assert verdict.verdict == "accepted", timed.message
    assert verdict.time.ratio < 5, verdict.time


def test_a_first_round_far_under_the_limit_is_judged_alone():
    # Slower than the limit from the second round on, which is never run: the first says under a third of it.
    verdict, timed = timed_result(slow_calls=FIRST_ROUND_CALLS, repeats=1, repeats_after=FAR_OVER_REPEATS,
                                  time_ratio=WIDE_TIME_RATIO)
    assert verdict.verdict == "accepted", timed.message
    assert verdict.time.ratio < WIDE_TIME_RATIO / 3, verdict.time


def test_a_first_round_under_the_limit_but_not_far_under_it_is_followed_by_the_others():
    verdict, timed = timed_result(slow_calls=FIRST_ROUND_CALLS, repeats=UNDER_LIMIT_REPEATS,
                                  repeats_after=NEAR_MISS_REPEATS)
    assert verdict.verdict == "time_limit_exceeded", timed.message
