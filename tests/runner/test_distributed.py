"""Distributed problems: ranks spawned inside one sandbox, gloo on loopback, collectives counted."""

import pytest

from runner import load_problem
from runner.check import check_problem

from .conftest import FIXTURE_PROBLEMS, SHARED_CACHE, TEST_KEY, requires_bubblewrap

pytestmark = [pytest.mark.sandbox, pytest.mark.slow, requires_bubblewrap]


def test_every_expectation_of_the_distributed_fixture_holds():
    problem = load_problem("allreduce-sum", FIXTURE_PROBLEMS)
    results = check_problem(problem, secret_key=TEST_KEY, cache=SHARED_CACHE)
    assert [r.path.name for r in results if not r.met] == [], [r.explain() for r in results if not r.met]
    verdict = results[0].verdict
    assert [t.name for t in verdict.tests] == ["two-ranks", "three-ranks"]
