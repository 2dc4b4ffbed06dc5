"""A failure names a classic mistake only when the submission makes it (runner/kit/mistakes.py, `reproduces`
and `agree`)."""

from __future__ import annotations

import torch

from runner import load_problem
from runner.kit.mistakes import exactly

from .conftest import ROOT

EPS_OUTSIDE = "adding eps outside the square root gives"


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
