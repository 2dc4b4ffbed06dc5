"""A test's memory limit: the ratio to the reference's peak, and the bound a checker may add to it."""

from types import SimpleNamespace

import torch

from runner import problems
from runner.testcase import case_memory_limit

MIB = 1 << 20
TEST = problems.TestSpec("stack", {"blocks": 8})
INPUTS = {"x": torch.zeros(2)}


def problem_with(checker) -> SimpleNamespace:
    return SimpleNamespace(limits=problems.Limits(memory_ratio=1.5, memory_floor_bytes=MIB), checker=checker)


def test_without_a_bound_of_its_own_the_limit_is_the_ratio_to_the_reference():
    limit, basis = case_memory_limit(problem_with(SimpleNamespace()), TEST, INPUTS, 40 * MIB)
    assert limit == 60 * MIB
    assert basis == "1.5× the reference's 40.00 MiB"


def test_a_checker_bound_tighter_than_the_ratio_sets_the_limit_and_is_named():
    seen = []

    def memory_limit(params, inputs):
        seen.append((params, inputs))
        return 50 * MIB, "at most half the plain stack's 100.00 MiB"

    limit, basis = case_memory_limit(problem_with(SimpleNamespace(memory_limit=memory_limit)), TEST, INPUTS,
                                     40 * MIB)
    assert limit == 50 * MIB
    assert basis == "1.5× the reference's 40.00 MiB; at most half the plain stack's 100.00 MiB"
    assert seen == [(TEST.params, INPUTS)]


def test_a_looser_checker_bound_leaves_the_ratio_limit_but_is_still_named():
    checker = SimpleNamespace(memory_limit=lambda params, inputs: (90 * MIB, "at most 90 MiB"))
    limit, basis = case_memory_limit(problem_with(checker), TEST, INPUTS, 40 * MIB)
    assert limit == 60 * MIB and basis.endswith("; at most 90 MiB")


def test_a_checker_may_have_no_bound_for_a_test():
    checker = SimpleNamespace(memory_limit=lambda params, inputs: None)
    assert case_memory_limit(problem_with(checker), TEST, INPUTS, 40 * MIB) == (
        60 * MIB, "1.5× the reference's 40.00 MiB")
