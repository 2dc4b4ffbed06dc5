"""The sampler kind (runner/kit/sampler.py) on a package of its own, written here, and its sandbox half
(runner/kit/sandbox_sampler.py): what a package must declare, and the words of each verdict on crafted reports."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from runner import compare, kit
from runner.kit import sandbox_sampler
from runner.kit.sampler import SamplerChecker
from runner.kit.truth import trusted_context
from runner.verdict import split_why

FACES = torch.tensor([0.4, 0.3, 0.2, 0.1, 0.0], dtype=torch.float64)
COUNT = torch.tensor([0.25, 0.5, 0.25], dtype=torch.float64)
SPEC = '''
import torch
from runner import kit


def inputs(params, generator):
    return {"weights": torch.tensor([4.0, 3.0, 2.0, 1.0, 0.0])}


def describe(params, inputs):
    return "roll(weights)"


def laws(params, inputs):
    weights = inputs["weights"]
    return {"the faces": kit.Law(weights / weights.sum(), "face"),
            "the sixes": kit.Law(torch.tensor([0.25, 0.5, 0.25], dtype=torch.float64), "count", ordinal=True)}


def draws(params, inputs, got):
    return {"the faces": got["faces"], "the sixes": got["sixes"]}


def law_of(solution, params, inputs):
    return {"the faces": solution.law(inputs["weights"])}


def uniform(params, inputs):
    return {"the faces": torch.full((5,), 0.2, dtype=torch.float64), "the sixes": torch.tensor([0.0, 1.0, 0.0])}
'''
SQUARED = "def law(weights):\n    return weights ** 2 / (weights ** 2).sum()\n"
MISTAKES = [{"solution": "squared.py", "says": "squaring the weights gives: a face's chance is its weight"},
            {"spec": "uniform", "says": "a fair die gives: the weights decide"}]
VERSIONS = itertools.count()


def package(tmp_path: Path, spec: str = SPEC, mistakes=MISTAKES, declared=None) -> SimpleNamespace:
    """A sampler package in tmp_path, with a version of its own (remembered runs are keyed by it)."""
    (tmp_path / "spec.py").write_text(spec)
    (tmp_path / "reference.py").write_text("")
    (tmp_path / "squared.py").write_text(SQUARED)
    return SimpleNamespace(slug="die", path=tmp_path, version=f"{next(VERSIONS):012d}", kind="sampler", interface={},
                           tolerance={}, mistakes=mistakes,
                           declared={"sampler": {"false_rejection": 1e-6}} if declared is None else declared)


def drawn(probabilities: torch.Tensor, draws: int, seed: int = 0) -> torch.Tensor:
    return torch.multinomial(probabilities, draws, replacement=True, generator=torch.Generator().manual_seed(seed))


def reports(faces=FACES, sixes=COUNT, draws=4000, seed=0) -> dict[str, torch.Tensor]:
    return {"faces": drawn(faces, draws, seed), "sixes": drawn(sixes, draws, seed + 1)}


def judged(checker: SamplerChecker, got: dict[str, torch.Tensor], params=None) -> str | None:
    params = params or {}
    inputs = checker.inputs(params, torch.Generator().manual_seed(0))
    return checker.check(params, inputs, got, reports())


@pytest.mark.parametrize(("hook", "spec", "says"), [
    ("laws", SPEC.replace("def laws(", "def the_laws("), "spec.py must define laws(params, inputs)"),
    ("draws", SPEC.replace("def draws(params, inputs, got)", "def draws(params, got)"),
     "draws takes 2 positional parameters; the kit calls draws(params, inputs, got)"),
    ("inputs", SPEC.replace("def inputs(", "def the_inputs("), "spec.py must define inputs(params, generator)"),
])
def test_a_required_hook_missing_or_of_another_signature_is_refused_at_load(tmp_path, hook, spec, says):
    with pytest.raises(kit.KitError, match=says.replace("(", r"\(").replace(")", r"\)")):
        SamplerChecker(package(tmp_path, spec))


def test_a_package_states_its_false_rejection_rate_and_how_a_mistakes_file_gives_its_law(tmp_path):
    for declared in ({}, {"sampler": {"false_rejection": 1}}, {"sampler": {"false_rejection": "1e-6"}}):
        with pytest.raises(kit.KitError, match=r"must state \[sampler\] false_rejection"):
            SamplerChecker(package(tmp_path, declared=declared))
    with pytest.raises(kit.KitError, match=r"must define law_of\(solution, params, inputs\) for its \[\[mistakes\]\]"):
        SamplerChecker(package(tmp_path, SPEC.replace("def law_of(", "def the_law_of(")))
    assert SamplerChecker(package(tmp_path, SPEC.replace("def law_of(", "def the_law_of("), MISTAKES[1:]))


def test_the_kit_adds_the_seed_of_the_submissions_generator_last(tmp_path):
    inputs = SamplerChecker(package(tmp_path)).inputs({}, torch.Generator().manual_seed(3))
    assert list(inputs) == ["weights", "seed"] and inputs["seed"].dtype == torch.int64


def test_draws_that_follow_every_law_pass(tmp_path):
    checker = SamplerChecker(package(tmp_path))
    assert all(judged(checker, reports(seed=seed)) is None for seed in range(0, 20, 2))


def test_a_missing_report_a_repeat_that_differs_and_a_draw_outside_the_categories_fail_in_those_words(tmp_path):
    checker = SamplerChecker(package(tmp_path))
    assert judged(checker, {"faces": reports()["faces"]}) == "roll(weights): sixes: missing"
    assert judged(checker, {**reports(), "faces": reports()["faces"].int()}) == \
        "roll(weights): faces: dtype int32, expected int64"
    got = {**reports(), "faces again": reports(seed=2)["faces"]}
    params = {"twice": True}
    inputs = checker.inputs(params, torch.Generator().manual_seed(0))
    said = checker.check(params, inputs, got, {**reports(), "faces again": reports()["faces"]})
    assert said.startswith("roll(weights): two calls with generators seeded alike returned different faces: draw every")
    outside = reports()
    outside["faces"][7] = 5
    assert judged(checker, outside) == "roll(weights), the faces: drew face 5, outside [0, 5) (1 such draw)"
    with compare.values_hidden():
        assert judged(checker, outside) == ("roll(weights), the faces: drew a face outside [0, 5) (a hidden test: "
                                            "its values are not shown)")


def test_an_impossible_draw_fails_at_once(tmp_path):
    got = reports()
    got["faces"][:3] = 4
    assert judged(SamplerChecker(package(tmp_path)), got) == \
        "roll(weights), the faces: drew face 4 3 times, whose probability is 0 (1 impossible face drawn)"


def test_draws_off_their_law_are_rejected_and_a_mistake_named_only_when_its_law_fits_every_set_it_has(tmp_path):
    checker = SamplerChecker(package(tmp_path))
    squared = FACES ** 2 / (FACES ** 2).sum()
    said = judged(checker, reports(faces=squared))
    assert said.startswith("roll(weights), the faces: the draws do not follow the distribution: chi-square")
    assert split_why(said)[0].endswith(". These draws are what squaring the weights gives.")
    assert split_why(said)[1] == "A face's chance is its weight."
    # The fair die's law of the faces fits, but its law of the sixes does not: it is not named.
    fair = torch.full((5,), 0.2, dtype=torch.float64)
    said = judged(checker, reports(faces=fair))
    assert "whose probability is 0" in said and "These draws are what" not in said
    said = judged(checker, reports(faces=fair, sixes=torch.tensor([0.0, 1.0, 0.0])))
    assert split_why(said) == (split_why(said)[0], "The weights decide.")
    assert split_why(said)[0].endswith(". These draws are what a fair die gives.")
    # Draws that fit no mistake's law name none.
    said = judged(checker, reports(faces=torch.tensor([0.2, 0.4, 0.3, 0.1, 0.0])))
    assert "do not follow the distribution" in said and "These draws are what" not in said


def test_an_ordinal_laws_mean_is_judged_by_a_two_sided_z_test_before_its_histogram(tmp_path):
    checker = SamplerChecker(package(tmp_path))
    said = judged(checker, reports(sixes=torch.tensor([0.2, 0.5, 0.3])))
    assert said == ("roll(weights), the sixes: the mean count is 1.094 where the law's is 1.000: a two-sided z-test "
                    "rejects it at p < 1e-06")
    with compare.values_hidden():
        assert judged(checker, reports(sixes=torch.tensor([0.2, 0.5, 0.3]))) == (
            "roll(weights), the sixes: the mean count is not the law's (a hidden test: its values are not shown): "
            "a two-sided z-test rejects it at p < 1e-06")
    # The same mean, another spread: the histogram decides.
    said = judged(checker, reports(sixes=torch.tensor([0.4, 0.2, 0.4])))
    assert said.startswith("roll(weights), the sixes: the draws do not follow the distribution: chi-square")


def test_the_z_test_rejects_a_correct_sampler_at_about_its_stated_rate(tmp_path):
    checker = SamplerChecker(package(tmp_path, declared={"sampler": {"false_rejection": 0.02}}))
    law = kit.Law(COUNT, "count", ordinal=True)
    counts = torch.nn.functional.one_hot(drawn(COUNT.expand(4000, -1), 1000), 3).sum(1)
    rejected = sum(checker.mean_rejection(row, law) is not None for row in counts)
    assert 40 <= rejected <= 130  # 80 expected at a rate of 2 %


def test_the_sandbox_half_reports_each_draw_by_name_and_repeats_the_call_when_the_test_asks():
    inputs, ctx = {"seed": torch.tensor([123])}, trusted_context()
    seeded = sandbox_sampler.draw(lambda g: (torch.rand(3, generator=g), torch.randint(9, (2,), generator=g)),
                                  ["u", "k"], {"twice": True}, inputs, ctx)
    assert list(seeded) == ["u", "k", "u again", "k again", "u other seed", "k other seed"]
    assert torch.equal(seeded["u"], seeded["u again"]) and torch.equal(seeded["k"], seeded["k again"])
    assert not torch.equal(seeded["u"], seeded["u other seed"])
    unseeded = sandbox_sampler.draw(lambda g: torch.rand(3), ["u"], {"twice": True}, inputs, ctx)
    assert not torch.equal(unseeded["u"], unseeded["u again"])
    assert sandbox_sampler.draw(lambda g: torch.rand(3, generator=g), ["u"], {}, inputs, ctx).keys() == {"u"}
    assert sandbox_sampler.draw(lambda g: [torch.rand(3), 4], ["u", "k"], {}, inputs, ctx).keys() == {"u"}
    assert sandbox_sampler.draw(lambda g: None, ["u"], {}, inputs, ctx) == {}


FIXED = SPEC.replace('kit.Law(weights / weights.sum(), "face")', 'kit.Law(weights / weights.sum(), "face", draws=params["draws"])') \
    .replace('"count", ordinal=True)', '"count", ordinal=True, draws=params["draws"])')


def quota(probabilities: torch.Tensor, draws: int) -> torch.Tensor:
    """The faces a deterministic quota draws: each face its expected number of times, to within one."""
    counts = (probabilities * draws).round().long()
    return torch.repeat_interleave(torch.arange(len(probabilities)), counts)


def test_draws_that_fit_better_than_chance_are_rejected_over_the_laws_of_a_test_together(tmp_path):
    checker = SamplerChecker(package(tmp_path, spec=FIXED))
    params = {"draws": 4000}
    honest = judged(checker, {**reports(), "faces": drawn(FACES, 4000)}, params)
    assert honest is None
    message = judged(checker, {"faces": quota(FACES, 4000), "sixes": quota(COUNT, 4000)}, params)
    assert "the draws fit the distribution better than random draws do" in message


def test_draws_that_stay_the_same_when_the_generator_is_seeded_otherwise_are_rejected(tmp_path):
    checker = SamplerChecker(package(tmp_path))
    inputs = checker.inputs({}, torch.Generator().manual_seed(0))
    expected = {**reports(), "faces other seed": reports()["faces"]}
    same = {**reports(), "faces other seed": reports()["faces"]}
    assert "a call with the generator seeded otherwise returned the same faces" in checker.check({}, inputs, same,
                                                                                                  expected)
    other = {**reports(), "faces other seed": drawn(FACES, 4000, seed=7)}
    assert checker.check({}, inputs, other, expected) is None


@pytest.mark.parametrize(("draws", "says"), [
    (40000, []),
    (8, ["the faces: 8 draws pool into one cell, so they are never tested",
         "the sixes: 8 draws pool into one cell, so they are never tested", "no power against argmax: its draws pass "
         "every check", "no power against a deterministic quota: its draws pass every check",
         "no power against a low-discrepancy sequence: its draws pass every check"]),
])
def test_a_test_without_power_against_each_wrong_sampler_is_named(tmp_path, draws, says):
    checker = SamplerChecker(package(tmp_path, spec=FIXED))
    params = {"draws": draws}
    assert checker.powerless(params, checker.inputs(params, torch.Generator().manual_seed(0))) == says
