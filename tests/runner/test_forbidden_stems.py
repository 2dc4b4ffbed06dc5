"""A problem forbids a computation, not a list of names: every operator of the installed PyTorch whose name holds
one of its forbidden stems is forbidden or allowed with why, or `runner check` fails the package."""

import shutil

import pytest

from runner import load_problem
from runner.check import shortfalls, unjudged_operators
from runner.problems import ProblemError, list_problems

from .conftest import ROOT


def _copy(tmp_path, edit):
    package = tmp_path / "stable-softmax"
    shutil.copytree(ROOT / "problems" / "stable-softmax", package)
    toml = package / "problem.toml"
    toml.write_text(edit(toml.read_text()))
    return load_problem("stable-softmax", tmp_path)


@pytest.mark.parametrize("problem", [problem for problem in list_problems() if problem.declared.get("forbidden_stems")],
                         ids=lambda problem: problem.slug)
def test_every_operator_a_packages_stems_match_is_forbidden_or_allowed(problem):
    assert unjudged_operators(problem) == []


def test_stable_softmax_forbids_the_softmax_kernels_its_names_once_missed():
    problem = load_problem("stable-softmax")
    assert problem.declared["forbidden_stems"] == ["softmax"]
    assert {"aten::_masked_softmax", "quantized::softmax"} <= set(problem.forbidden)


def test_a_matching_operator_neither_forbidden_nor_allowed_fails_the_package(tmp_path):
    problem = _copy(tmp_path, lambda text: text.replace(' "aten::_masked_softmax",', "")
                    .replace('"aten::_softmax_backward_data" = ', '"aten::_softmax_backward_dat" = '))
    assert unjudged_operators(problem) == [("aten::_masked_softmax.default", "softmax"),
                                           ("aten::_masked_softmax.out", "softmax"),
                                           ("aten::_softmax_backward_data.default", "softmax"),
                                           ("aten::_softmax_backward_data.out", "softmax")]
    assert any(found.startswith("aten::_masked_softmax.default, an operator of the installed PyTorch whose name "
                                "holds the forbidden stem 'softmax'") for found in shortfalls(problem))


def test_an_operator_allowed_without_a_reason_is_refused_when_the_package_loads(tmp_path):
    with pytest.raises(ProblemError, match="allowed_operators"):
        _copy(tmp_path, lambda text: text.replace(
            '"aten::_softmax_backward_data" = "a gradient given the softmax\'s output, which the submission computed '
            'itself"', '"aten::_softmax_backward_data" = " "'))
