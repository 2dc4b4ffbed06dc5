"""Statistics with power: every test of each statistical problem rejects each named wrong sampler (argmax, a
deterministic quota, a low-discrepancy sequence) and tests every set of draws it fixes, on several input seeds;
and a sampler's draws change with the seed of the generator it is given (pure torch, no sandbox)."""

import pytest
import torch

from runner import list_problems, load_problem
from runner.kit import sandbox_sampler
from runner.kit.sampler import WRONG_SAMPLERS
from runner.kit.truth import load_module, load_sibling, trusted_context

# Every problem judged by the distribution of its draws.
STATISTICAL = [problem.slug for problem in list_problems() if problem.kind == "sampler"]


@pytest.mark.parametrize("slug", STATISTICAL)
def test_every_test_rejects_each_named_wrong_sampler_and_tests_every_set_of_draws_it_fixes(slug):
    problem = load_problem(slug)
    for test in problem.tests:
        for seed in range(3):
            inputs = problem.checker.inputs(test.params, torch.Generator().manual_seed(seed))
            assert problem.checker.powerless(test.params, inputs) == [], (test.name, seed)


@pytest.mark.parametrize("slug", STATISTICAL)
def test_the_statement_states_the_false_rejection_rate_and_the_wrong_samplers_it_rejects(slug):
    statement = (load_problem(slug).path / "statement.md").read_text()
    for words in ("argmax", "deterministic quota", "low-discrepancy sequence", "seeded otherwise"):
        assert words in statement, words


@pytest.mark.parametrize("slug", STATISTICAL)
def test_the_references_draws_change_when_the_generators_seed_does(slug, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "kit_sampler", sandbox_sampler)
    problem = load_problem(slug)
    driver = load_sibling(problem.path / "spec.py", "driver.py")
    reference = load_module(problem.path / "reference.py", f"reference_{slug.replace('-', '_')}")
    test = next(test for test in problem.tests if test.params.get("twice"))
    inputs = problem.checker.inputs(test.params, torch.Generator().manual_seed(0))
    first = driver.run(reference, test.params, inputs, trusted_context())
    again = driver.run(reference, test.params, {**inputs, "seed": inputs["seed"] + 2}, trusted_context())
    names = [name for name in first if not name.endswith((sandbox_sampler.AGAIN, sandbox_sampler.OTHER_SEED))]
    assert names and all(not torch.equal(first[name], again[name]) for name in names)
    assert all(not torch.equal(first[name], first[name + sandbox_sampler.OTHER_SEED]) for name in names)


def test_the_named_wrong_samplers_are_argmax_a_quota_and_a_low_discrepancy_sequence():
    assert list(WRONG_SAMPLERS) == ["argmax", "a deterministic quota", "a low-discrepancy sequence"]
