"""Problem packages: loading, validation, versions and the solutions' declared expectations."""

import shutil

import pytest

from runner import ProblemError, list_problems, load_problem
from runner.problems import read_expectation

from .conftest import FIXTURE_PROBLEMS, ROOT


@pytest.fixture
def package(tmp_path):
    """A private copy of stable-softmax to change."""
    shutil.copytree(ROOT / "problems" / "stable-softmax", tmp_path / "stable-softmax")
    return tmp_path


def test_the_repository_problems_are_listed_by_slug():
    slugs = [problem.slug for problem in list_problems()]
    assert "stable-softmax" in slugs and slugs == sorted(slugs)


def test_stable_softmax_declares_what_the_judge_needs():
    problem = load_problem("stable-softmax")
    assert problem.entry_points == ["softmax"]
    assert "aten::_softmax" in problem.forbidden
    assert [t.name for t in problem.selected_tests("sample")] == ["rows-last-dim", "large-magnitude",
                                                                  "middle-dim-float64"]
    assert any(test.timed for test in problem.tests) and not any(t.timed for t in problem.selected_tests("sample"))


def test_every_solution_declares_a_verdict():
    problem = load_problem("stable-softmax")
    expectations = [expected for _, expected, _ in problem.solutions()]
    assert expectations.count("accepted") >= 4
    assert len([e for e in expectations if e != "accepted"]) >= 6


def test_the_problems_directory_is_a_parameter():
    assert [p.slug for p in list_problems(FIXTURE_PROBLEMS)] == ["allreduce-sum", "kit-function", "kit-module"]


@pytest.mark.parametrize("slug", ["no-such-problem", "../problems", "Bad_Slug"])
def test_an_unknown_or_malformed_slug_is_refused(slug):
    with pytest.raises(ProblemError):
        load_problem(slug)


def test_a_malformed_problem_toml_is_refused_with_its_reason(package):
    path = package / "stable-softmax" / "problem.toml"
    path.write_text(path.read_text().replace('name = "timed-rows"\ntimed = true',
                                             'name = "timed-rows"\ntimed = true\nsample = true'))
    with pytest.raises(ProblemError, match="timed tests must be hidden"):
        load_problem("stable-softmax", package)


def test_a_package_missing_a_file_is_refused(package):
    (package / "stable-softmax" / "spec.py").unlink()
    with pytest.raises(ProblemError, match="spec.py"):
        load_problem("stable-softmax", package)


def test_the_version_follows_the_files_that_decide_a_verdict(package):
    before = load_problem("stable-softmax", package).version
    (package / "stable-softmax" / "statement.md").write_text("reworded")
    assert load_problem("stable-softmax", package).version == before
    with open(package / "stable-softmax" / "spec.py", "a") as spec:
        spec.write("\n# stricter\n")
    assert load_problem("stable-softmax", package).version != before


def test_a_custom_problem_needs_its_own_checker_and_driver(package):
    toml = package / "stable-softmax" / "problem.toml"
    toml.write_text(toml.read_text().replace('kind = "function"', 'kind = "custom"'))
    (package / "stable-softmax" / "checker.py").write_text("")
    with pytest.raises(ProblemError, match="driver.py"):
        load_problem("stable-softmax", package)


def test_expectations_are_read_from_the_leading_comments():
    assert read_expectation(b"# expect: forbidden\n# message: aten::_softmax\nimport torch\n") == (
        "forbidden", "aten::_softmax")
    assert read_expectation(b"import torch\n") == (None, None)


def test_a_checker_is_imported_once_per_version_however_often_its_problem_is_loaded(tmp_path):
    """A worker loads the problem for each submission: what the checker keeps (checkpointed-block's plain
    model's peak) serves every later judgement, and an edited package gets a checker of its own."""
    checkpointed = load_problem("checkpointed-block").checker
    assert load_problem("checkpointed-block").checker is checkpointed
    assert load_problem("stable-softmax").checker is load_problem("stable-softmax").checker
    edited = tmp_path / "checkpointed-block"
    shutil.copytree(ROOT / "problems" / "checkpointed-block", edited)
    copied = load_problem("checkpointed-block", tmp_path).checker
    assert copied is not checkpointed  # another folder
    with (edited / "spec.py").open("a") as spec:
        spec.write("\nEDITED = True\n")
    changed = load_problem("checkpointed-block", tmp_path).checker
    assert changed is not copied
    assert load_problem("checkpointed-block", tmp_path).checker is changed
