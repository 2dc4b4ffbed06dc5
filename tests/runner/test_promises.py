"""Every promise of every statement is mapped to the tests that keep it (runner/promises.py)."""

from __future__ import annotations

import shutil

import pytest

from runner import list_problems, load_problem
from runner.promises import promised_sentences, sentences, unkept

from .conftest import FIXTURE_PROBLEMS, ROOT

PROBLEMS = [problem.slug for problem in list_problems(ROOT / "problems")]


@pytest.mark.parametrize("slug", PROBLEMS)
def test_every_promise_of_the_statement_is_mapped_to_tests_that_exist(slug):
    assert unkept(load_problem(slug, ROOT / "problems")) == []


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
