"""A failure names a classic mistake only when the submission makes it (runner/kit/mistakes.py, `reproduces`),
and a judgement searches for the mistakes it has not named yet only until it names one (`diagnosed_once`).

Each problem's reference, with a bug of its own injected into its first floating output (scaled by 1.01, or
one element's sign flipped; a boolean output gets one element flipped), must fail, and no message may say it
is exactly one of the problem's `[[mistakes]]`: none of them is either bug. Judged for real, in the sandbox.
"""

from __future__ import annotations

import tomllib

import pytest
import torch

from runner import load_problem
from runner.kit.mistakes import SEARCHES_IN_VAIN, agree, diagnosed_once, exactly, remembered, reproduces
from runner.verdict import WRONG_ANSWER, split_why

from .conftest import ROOT, judge_for_tests, requires_bubblewrap

EPS_OUTSIDE = "adding eps outside the square root gives"

# The problems with `[[mistakes]]` whose entry point the kit calls directly (a function, or a module's forward).
CALLED = ["causal-mask", "conv2d-im2col", "cross-entropy", "flash-attention", "layernorm-backward",
          "lora-linear", "mhsa", "moe-router", "rmsnorm", "rope", "swiglu"]
BUGS = {
    "scaled": "out * 1.01",
    "one-sign": "out * torch.where(torch.arange(out.numel()).reshape(out.shape) == out.detach().abs().argmax(), "
                "-1.0, 1.0).to(out.dtype)",
}
# Appended to the reference: its entry point's first floating output (or first boolean one) gets the bug.
INJECTED = '''

import torch as _torch_for_the_bug


def _with_the_bug(result):
    torch = _torch_for_the_bug
    outputs = list(result) if isinstance(result, tuple) else [result]
    for index, out in enumerate(outputs):
        if out.dtype == torch.bool:
            flipped = out.clone()
            flipped.view(-1)[0] = ~flipped.view(-1)[0]
            outputs[index] = flipped
            break
        if out.is_floating_point() and out.numel():
            outputs[index] = {bug}
            break
    return tuple(outputs) if isinstance(result, tuple) else outputs[0]


'''


def with_bug(slug: str, bug: str) -> str:
    problem = load_problem(slug, ROOT / "problems")
    call = problem.interface["call"]
    source = (problem.path / "reference.py").read_text() + INJECTED.replace("{bug}", BUGS[bug])
    if problem.kind == "module":
        return source + (f"_correct_forward = {call}.forward\n\n\n"
                         f"def _forward_with_the_bug(self, *args, **kwargs):\n"
                         f"    return _with_the_bug(_correct_forward(self, *args, **kwargs))\n\n\n"
                         f"{call}.forward = _forward_with_the_bug\n")
    return source + (f"_correct_call = {call}\n\n\n"
                     f"def {call}(*args, **kwargs):\n"
                     f"    return _with_the_bug(_correct_call(*args, **kwargs))\n")


@requires_bubblewrap
@pytest.mark.parametrize("bug", sorted(BUGS))
@pytest.mark.parametrize("slug", CALLED)
def test_a_correct_solution_with_another_bug_is_never_called_a_classic_mistake(slug, bug):
    problem = load_problem(slug, ROOT / "problems")
    verdict = judge_for_tests(problem, with_bug(slug, bug), tests="all", stop_at_first_failure=True)
    failed = [test for test in verdict.tests if test.status != "passed"]
    assert verdict.verdict != "accepted" and failed, f"the {bug} bug went unnoticed"
    named = [(test.name, mistake["says"]) for test in failed for mistake in problem.mistakes
             if split_why(exactly(mistake["says"]))[0] in test.message]
    assert named == [], [test.message for test in failed]


def _in_float32(outputs):
    return {name: value.to(torch.float32) if value.is_floating_point() else value for name, value in outputs.items()}


def test_a_mistake_is_named_only_when_every_output_of_the_call_is_the_mistakes():
    """rmsnorm's eps-outside-the-root mistake changes y and x.grad: a y that is the mistake's beside an x.grad
    that is right is some other bug, not that mistake."""
    checker = load_problem("rmsnorm", ROOT / "problems").checker
    params = {"shape": [6, 64], "dtype": "float32", "scale": 1e-3}
    inputs = checker.inputs(params, torch.Generator().manual_seed(0))
    truth = checker.truth(params, inputs)
    mistake = next(outputs for says, outputs in checker.candidates(params, inputs) if says.startswith(EPS_OUTSIDE))
    expected = _in_float32(truth)
    whole_mistake = _in_float32(mistake)
    assert checker.named_mistake("y", params, inputs, whole_mistake, expected, truth).startswith(
        exactly(EPS_OUTSIDE)[:-1])
    only_y = {**expected, "y": whole_mistake["y"]}
    assert checker.named_mistake("y", params, inputs, only_y, expected, truth) == ""


def test_within_one_run_a_named_mistake_is_the_only_one_looked_for_and_searches_in_vain_end_the_search():
    checker = load_problem("rmsnorm", ROOT / "problems").checker
    params = {"shape": [6, 64], "dtype": "float32", "scale": 1e-3}
    inputs = checker.inputs(params, torch.Generator().manual_seed(0))

    def looked_for():
        return [says for says, _ in checker.candidates(params, inputs)]
    every = looked_for()
    assert len(every) >= 2
    with diagnosed_once():
        assert looked_for() == every  # a search that names none is one in vain
        remembered(every[1])
        assert looked_for() == [every[1]]
        assert looked_for() == [every[1]]
    with diagnosed_once():
        for _ in range(SEARCHES_IN_VAIN - 1):
            assert looked_for() == every
        assert looked_for() == every
        assert looked_for() == []
    assert looked_for() == every


@requires_bubblewrap
def test_a_wrong_submission_names_its_own_mistake_first_and_no_other_on_a_later_test():
    """Judged for real: the first failure names the file's mistake, and every later one names it or nothing. (With
    every mistake searched on every test, a later test of this file was once said to be another, averaging the
    smoothing term over ignored tokens, which the file does not make.)"""
    problem = load_problem("cross-entropy", ROOT / "problems")
    own = next(mistake.says for mistake in problem.checker.mistakes if "softmax - one_hot" in mistake.says)
    source = (problem.path / "solutions" / "wrong" / "backward_ignores_smoothing.py").read_bytes()
    verdict = judge_for_tests(problem, source, tests="all", seed_index=5)
    failed = [test for test in verdict.tests if test.status == WRONG_ANSWER]
    named = [[mistake.says for mistake in problem.checker.mistakes
              if split_why(exactly(mistake.says))[0] in test.message] for test in failed]
    assert len(failed) >= 5 and named[0] == [own], named
    assert all(names in ([], [own]) for names in named), named


def test_an_output_a_few_tolerances_off_is_called_only_a_mistake_it_is_nearer_than_the_truth():
    truth, allowed = torch.zeros(4, dtype=torch.float64), 1e-6
    got = torch.full((4,), 3e-6)  # wrong, by three tolerances
    assert not reproduces(got, torch.tensor([2e-6, 0, 0, 0], dtype=torch.float64), truth, allowed)
    assert reproduces(got, torch.full((4,), 3.1e-6, dtype=torch.float64), truth, allowed)


def test_a_mistake_that_is_wrong_where_the_output_is_right_is_not_named():
    truth = {"loss": torch.tensor(8.0, dtype=torch.float64), "grad": torch.zeros(4, dtype=torch.float64)}
    got = {"loss": torch.tensor(8.0), "grad": torch.full((4,), 0.1)}
    allowed = {"loss": 1e-5, "grad": 1e-6}
    wrong_loss = {"loss": torch.tensor(8.0 + 3e-5, dtype=torch.float64), "grad": got["grad"].double()}
    assert not agree(got, wrong_loss, truth, allowed, ["loss"])
    right_loss = {"loss": torch.tensor(8.0 + 0.5e-5, dtype=torch.float64), "grad": got["grad"].double()}
    assert agree(got, right_loss, truth, allowed, ["loss"])


def test_cross_entropys_hand_written_backward_is_not_called_smoothing_over_ignored_tokens():
    """Found judging backward_ignores_smoothing.py: on these inputs its logits.grad is three tolerances from the
    truth, and the averaging mistake's gradient lands as near, with a loss off by three of the loss's tolerances
    where the submission's loss is right; the first rule that matched named it."""
    problem = load_problem("cross-entropy", ROOT / "problems")
    checker = problem.checker
    params = next(test for test in problem.tests if test.name == "timed-512-tokens").params
    inputs = checker.inputs(params, torch.Generator().manual_seed(27))
    truth = checker.truth(params, inputs)
    own = next(mistake for mistake in checker.mistakes if "softmax - one_hot" in mistake.says)
    got = _in_float32(checker.run_in_float64(own.solution, params, inputs))
    expected = _in_float32(truth)
    assert checker.value_problem("logits.grad", got["logits.grad"], expected["logits.grad"], truth["logits.grad"],
                                 inputs)
    assert checker.named_mistake("logits.grad", params, inputs, got, expected, truth) == exactly(own.says)


MISTAKE_WORDS = {path.parent.name: [entry["says"] for entry in tomllib.loads(path.read_text()).get("mistakes", [])]
                 for path in sorted((ROOT / "problems").glob("*/problem.toml"))}


@pytest.mark.parametrize("slug", [slug for slug, says in MISTAKE_WORDS.items() if says], ids=str)
def test_a_named_mistake_says_what_it_is_and_keeps_the_rule_it_breaks_for_the_why(slug):
    """A message names the mistake; the rule it breaks, which is the fix, is only in the why (docs/judge.md,
    Why?), so that reading a failure is not reading its answer."""
    for says in MISTAKE_WORDS[slug]:
        said, why = split_why(exactly(says))
        assert why, f"{slug}: {says!r} says no rule after its ': '"
        assert why.rstrip(".").lower()[:40] not in said.lower(), (said, why)


@requires_bubblewrap
def test_a_problems_own_diagnosis_keeps_its_fix_for_the_why():
    """stable-softmax's words for a NaN from exp overflowing say what happened; subtracting the maximum, the fix,
    is the why (spec.diagnose through kit.why_after_colon)."""
    problem = load_problem("stable-softmax", ROOT / "problems")
    source = (ROOT / "problems/stable-softmax/solutions/wrong/naive_exp.py").read_bytes()
    failed = next(test for test in judge_for_tests(problem, source, tests="sample").tests if test.status != "passed")
    assert "exp overflows to inf" in failed.message and "ubtract" not in failed.message, failed.message
    assert failed.why.startswith("Subtract the maximum along dim"), failed.why
