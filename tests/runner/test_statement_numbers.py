"""Every statement states the judge's numbers, and they are problem.toml's (runner/stated_numbers.py)."""

from __future__ import annotations

import shutil

import pytest

from runner import list_problems, load_problem
from runner.stated_numbers import disagreements

from .conftest import ROOT

PROBLEMS = [problem.slug for problem in list_problems(ROOT / "problems")]


@pytest.mark.parametrize("slug", PROBLEMS)
def test_the_statement_states_every_limit_tolerance_and_tested_size_as_problem_toml_has_it(slug):
    assert disagreements(load_problem(slug, ROOT / "problems")) == []


@pytest.fixture
def rmsnorm_copy(tmp_path):
    shutil.copytree(ROOT / "problems" / "rmsnorm", tmp_path / "rmsnorm")
    return tmp_path / "rmsnorm"


def _edit(folder, old, new):
    statement = folder / "statement.md"
    text = statement.read_text()
    assert old in text
    statement.write_text(text.replace(old, new, 1))
    return disagreements(load_problem("rmsnorm", folder.parent))


def test_a_limit_the_statement_misstates_is_named(rmsnorm_copy):
    assert _edit(rmsnorm_copy, "`time_ratio = 5`", "`time_ratio = 4`") == [
        "`time_ratio = 4` but problem.toml has 5.0"]


def test_a_limit_the_statement_leaves_out_is_named(rmsnorm_copy):
    assert _edit(rmsnorm_copy, "`memory_ratio = 4`", "4") == ["missing `memory_ratio = 4.0`"]


def test_a_tolerance_setting_left_out_is_named_with_the_kits_default(rmsnorm_copy):
    assert _edit(rmsnorm_copy, "`rounding_units = 32`", "32") == ["missing `rounding_units = 32.0`"]


def test_a_timed_tests_shape_that_differs_or_is_missing_is_named(rmsnorm_copy):
    assert _edit(rmsnorm_copy, "`shape = [256, 1024]`", "`shape = [256, 512]`") == [
        "`timed-256-tokens`: `shape = [256, 512]` but its params have [256, 1024]"]
    assert _edit(rmsnorm_copy, "`shape = [256, 512]`, ", "") == [
        "`timed-256-tokens`: missing `shape = [256, 1024]`"]


def test_the_extreme_tests_dtype_is_required(rmsnorm_copy):
    text = (rmsnorm_copy / "statement.md").read_text()
    line = next(line for line in text.splitlines() if line.startswith("- `largest-float32`"))
    assert _edit(rmsnorm_copy, line, line.replace(", `dtype = float32`", "")) == [
        "`largest-float32`: missing `dtype = 'float32'`"]


def test_a_change_to_problem_toml_alone_fails_too(rmsnorm_copy):
    toml = rmsnorm_copy / "problem.toml"
    toml.write_text(toml.read_text().replace("memory_ratio = 4.0", "memory_ratio = 3.0"))
    assert disagreements(load_problem("rmsnorm", rmsnorm_copy.parent)) == [
        "`memory_ratio = 4` but problem.toml has 3.0"]


def test_a_statement_without_the_section_is_refused(rmsnorm_copy):
    assert _edit(rmsnorm_copy, "## Limits", "## Numbers") == ['the statement has no "## Limits" section']


def test_an_outputs_own_rule_is_held_to_outputs_even_on_a_continued_line(tmp_path):
    shutil.copytree(ROOT / "problems" / "int8-quantize", tmp_path / "int8-quantize")
    statement = tmp_path / "int8-quantize" / "statement.md"
    text = statement.read_text()
    assert "`atol = 0.501`" in text
    statement.write_text(text.replace("`atol = 0.501`", "`atol = 0.5`"))
    assert disagreements(load_problem("int8-quantize", tmp_path)) == [
        "output `round trip (in steps of the scale)`: `atol = 0.5` but [outputs] has 0.501"]


def test_a_span_that_names_no_limit_is_named_once(rmsnorm_copy):
    assert _edit(rmsnorm_copy, "`wall_s = 180`", "`wall_s = 180`, `walls = 3`") == [
        "`walls = ...` is neither a limit nor a setting of the tolerance"]
