"""cross-entropy's inputs keep the promise each test's description makes, under every seed (pure torch, no sandbox).

A test that says "some targets = ignore_index" has at least one ignored token and at least one counted: a
draw with none ignored let a solution that averages over padding pass the test meant to catch it.
"""

from __future__ import annotations

import pytest

from runner import seeds
from runner.problems import load_problem

PROBLEM = load_problem("cross-entropy")
SEEDS = 1_000
# The large tests draw megabytes of logits per seed: as many seeds as a version has hidden ones.
LARGE_SEEDS = seeds.SEEDS_PER_VERSION


@pytest.mark.parametrize("test", [test for test in PROBLEM.tests if test.params.get("ignored")],
                         ids=lambda test: test.name)
def test_a_test_with_padding_has_some_ignored_tokens_and_one_counted_whatever_the_seed(test):
    pad = test.params.get("ignore_index", -100)
    # As many as the test's share of its tokens, at least one, and never all of them.
    wanted = min(test.params["n"] - 1, max(1, round(test.params["ignored"] * test.params["n"])))
    large = test.params["n"] * test.params["classes"] > 100_000
    for seed in range(LARGE_SEEDS if large else SEEDS):
        target = PROBLEM.checker.inputs(test.params, seeds.generator(seed, test.name))["target"]
        ignored = int((target == pad).sum())
        assert ignored >= wanted, (seed, target)
        assert ignored < len(target), (seed, target)
