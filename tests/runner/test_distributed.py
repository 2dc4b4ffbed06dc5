"""Distributed problems: ranks spawned inside one sandbox, gloo on loopback, collectives counted."""

import pytest

from runner import load_problem

from .conftest import FIXTURE_PROBLEMS, judge_for_tests, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, requires_bubblewrap]

PROBLEM = load_problem("allreduce-sum", FIXTURE_PROBLEMS)


def test_the_reference_is_accepted_at_every_world_size_the_tests_ask_for():
    verdict = judge_for_tests(PROBLEM, PROBLEM.source("reference.py"), tests="all")
    assert verdict.verdict == "accepted", verdict.tests
    assert [t.name for t in verdict.tests] == ["two-ranks", "three-ranks"]


@pytest.mark.parametrize("path", [p for p, _, _ in PROBLEM.solutions()[1:]], ids=lambda p: p.stem)
def test_each_solution_gets_its_declared_verdict(path):
    _, expected, message = next(s for s in PROBLEM.solutions() if s[0] == path)
    verdict = judge_for_tests(PROBLEM, path.read_bytes(), tests="sample")
    assert verdict.verdict == expected, verdict.tests
    if message:
        assert message in verdict.tests[0].message
