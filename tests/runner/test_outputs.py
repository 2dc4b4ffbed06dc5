"""A checker only ever judges outputs with the reference's structure; what it raises is blamed where it is due."""

import pytest
import torch

from runner import compare
from runner.kit import sandbox as kit_sandbox
from runner.kit.truth import trusted_context
from runner.outputs import judged, structure_mismatch
from runner.problems import load_problem

EXPECTED = {"y": torch.zeros(2, 3), "reach": torch.zeros(3, 3, dtype=torch.float64)}


def _seen_by(check_result=None):
    """A check that records what it was shown and answers check_result (or raises it, if an exception)."""
    seen = []

    def check(got):
        seen.append(dict(got))
        if isinstance(check_result, Exception):
            raise check_result
        return check_result

    return check, seen


def test_outputs_of_the_reference_structure_go_to_the_checker_without_the_names_it_never_produced():
    check, seen = _seen_by("y is off")
    got = {**EXPECTED, "forged": torch.zeros(1)}
    assert judged(check, got, EXPECTED) == "y is off"
    assert list(seen[0]) == ["y", "reach"]


@pytest.mark.parametrize("got, complaint", [
    ({"y": torch.zeros(2, 3)}, "reach: missing"),
    ({"y": torch.zeros(3), "reach": torch.zeros(3, 3, dtype=torch.float64)}, "y: shape (3,), expected (2, 3)"),
    ({"y": torch.zeros(2, 3), "reach": torch.zeros(3, 3)}, "reach: dtype float32, expected float64"),
])
def test_a_missing_or_misshapen_output_is_named(got, complaint):
    assert complaint in structure_mismatch(got, EXPECTED)


@pytest.mark.parametrize("answer", [None, "", ValueError("triu needs 2 dimensions")])
def test_misshapen_outputs_are_wrong_whatever_the_checker_makes_of_them(answer):
    check, _ = _seen_by(answer)
    message = judged(check, {"y": torch.zeros(2, 3), "reach": torch.zeros(3)}, EXPECTED)
    assert message.startswith("reach: shape (3,), expected (3, 3)")


def test_the_checker_words_a_misshapen_output_when_it_can():
    check, _ = _seen_by("softmax(x, dim=1): the output: shape (3,), expected (2, 3)")
    assert judged(check, {"y": torch.zeros(3)}, EXPECTED) == "softmax(x, dim=1): the output: shape (3,), expected (2, 3)"


def test_a_checker_that_raises_only_on_the_submissions_outputs_makes_a_wrong_answer():
    def check(got):
        if got["y"].sum() != 0:
            raise IndexError("index 7 is out of bounds")
        return None

    message = judged(check, {"y": torch.ones(2, 3), "reach": EXPECTED["reach"]}, EXPECTED)
    assert "could not be judged" in message and "IndexError" in message and "index 7" not in message


def test_a_checker_that_raises_on_the_references_outputs_too_is_the_judges_own_bug():
    check, _ = _seen_by(KeyError("params"))
    with pytest.raises(KeyError):
        judged(check, dict(EXPECTED), EXPECTED)


def test_rerunning_the_checker_leaves_the_references_outputs_as_they_were():
    expected = {"y": torch.zeros(2, 3)}

    def check(got):
        got["y"].add_(1)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        judged(check, {"y": torch.zeros(2, 3)}, expected)
    assert torch.equal(expected["y"], torch.zeros(2, 3))


def test_a_real_checker_keeps_its_own_message_for_an_output_of_the_wrong_shape():
    problem = load_problem("stable-softmax")
    test = problem.tests[0]
    inputs = problem.checker.inputs(test.params, torch.Generator().manual_seed(0))
    expected = kit_sandbox.run_standard(problem.kind, problem.interface, problem.checker.reference, test.params,
                                        inputs, trusted_context())
    got = {**expected, "y": expected["y"].flatten()}
    message = judged(lambda outputs: problem.checker.check(test.params, inputs, outputs, expected), got, expected)
    assert message.startswith("softmax(") and "shape" in message
    assert "of the reference's" not in message


def test_on_a_hidden_test_the_shape_a_submission_chose_is_not_repeated_back():
    with compare.values_hidden():
        message = structure_mismatch({"y": torch.zeros(5, 7, 9)}, {"y": torch.zeros(2, 3)})
    assert "(5, 7, 9)" not in message and "not of the expected shape (2, 3)" in message
