"""Every promise of every statement is mapped to the tests that keep it (runner/promises.py)."""

from __future__ import annotations

import shutil

import pytest

from runner import list_problems, load_problem
from runner.promises import promised_sentences, rounding_unkept, sentences, unkept

from .conftest import FIXTURE_PROBLEMS, ROOT

PROBLEMS = [problem.slug for problem in list_problems(ROOT / "problems")]


@pytest.mark.parametrize("slug", PROBLEMS)
def test_every_promise_of_the_statement_is_mapped_to_tests_that_exist(slug):
    assert unkept(load_problem(slug, ROOT / "problems")) == []


@pytest.mark.parametrize("slug", PROBLEMS)
def test_every_tolerance_is_shown_to_hold_for_a_second_formula_at_the_extremes(slug):
    """runner check judges the named rounding variants on every test, the hidden extremes among them."""
    assert rounding_unkept(load_problem(slug, ROOT / "problems")) == []


def test_a_rounding_variant_must_be_a_correct_solution_that_says_how_it_differs(mapped_problem):
    promises = mapped_problem / "promises.toml"
    problem = load_problem("allreduce-sum", mapped_problem.parent)
    assert "names no [[rounding]] variant" in rounding_unkept(problem)[0]
    wrong = next((mapped_problem / "solutions" / "wrong").glob("*.py")).relative_to(mapped_problem)
    promises.write_text(f'[[rounding]]\nsolution = "{wrong}"\ndiffers = ""\n\n' + promises.read_text())
    found = rounding_unkept(problem)
    assert found == [f"promises.toml: [[rounding]] names '{wrong}', which is no file of solutions/correct/",
                     f"promises.toml: [[rounding]] '{wrong}' does not say how its formula differs",
                     "no hidden test at an extreme of the statement's ranges (a name that starts with largest-, "
                     "longest-, widest-, large- or huge-, or holds overflow) to judge the rounding variants on"]
    promises.write_text('no_rounding_variant = "every output is an exact integer"\n' + promises.read_text())
    assert "also says there are none" in rounding_unkept(problem)[0]


def test_sentences_are_split_at_their_ends_but_not_inside_code_or_abbreviations():
    text = ("- Returns a `torch.bool` tensor. It is True where\n  blocked, e.g. `masked_fill`.\n"
            "- Raises `ValueError` when `t_q > t_k`.\n\nA paragraph: `x.y` stays whole.")
    assert sentences(text) == ["Returns a `torch.bool` tensor.", "It is True where blocked, e.g. `masked_fill`.",
                               "Raises `ValueError` when `t_q > t_k`.", "A paragraph:", "`x.y` stays whole."]


@pytest.fixture
def mapped_problem(tmp_path):
    """A copy of a fixture problem whose statement has one promise per section, all mapped."""
    folder = tmp_path / "allreduce-sum"
    shutil.copytree(FIXTURE_PROBLEMS / "allreduce-sum", folder)
    test = load_problem("allreduce-sum", tmp_path).tests[0].name
    (folder / "statement.md").write_text(
        "# Sum\n\n## Interface\n\nReturns the sum.\n\n```python\ndef f(): ...\n```\n\n"
        "## Constraints\n\nAny size.\n\n## What is checked\n\nThe value.\n\n## Hints\n\nNot a promise.\n")
    (folder / "promises.toml").write_text(
        f'[[promise]]\ntext = "Returns the sum."\ntests = ["{test}"]\n\n'
        f'[[promise]]\ntext = "Any size."\ntests = ["{test}"]\n\n'
        '[[promise]]\ntext = "The value."\nwhy = "a reason"\n')
    return folder


def test_a_fully_mapped_statement_keeps_its_promises(mapped_problem):
    problem = load_problem("allreduce-sum", mapped_problem.parent)
    assert promised_sentences(problem) == ["Returns the sum.", "Any size.", "The value."]
    assert unkept(problem) == []


def test_an_unmapped_sentence_a_stale_entry_and_a_missing_test_are_each_reported(mapped_problem):
    statement = mapped_problem / "statement.md"
    statement.write_text(statement.read_text().replace("Any size.", "Any size up to 8.").replace(
        "The value.", "The value. The gradient."))
    promises = mapped_problem / "promises.toml"
    promises.write_text(promises.read_text().replace('why = "a reason"', 'tests = ["no-such-test"]'))
    found = unkept(load_problem("allreduce-sum", mapped_problem.parent))
    assert "unmapped promise: 'Any size up to 8.'" in found
    assert "unmapped promise: 'The gradient.'" in found
    assert any("no longer has: 'Any size.'" in line for line in found)
    assert any("no test named 'no-such-test'" in line for line in found)


def test_a_statement_without_the_shared_headings_is_reported(mapped_problem):
    statement = mapped_problem / "statement.md"
    statement.write_text(statement.read_text().replace("## Constraints", "## Rules"))
    found = unkept(load_problem("allreduce-sum", mapped_problem.parent))
    assert 'the statement has no "## Constraints" section' in found
