"""The ranks kind's module scenario on the trusted side: a module kit_ranks set up from full layers on every rank
(`set_up`) and stepped (`steps`: forward and backward on each input, one SGD step, forward again), its inputs,
its float64 truth and its steps as the kind judges them.

A test's params give `leading` (the leading dimensions of each call's input, one call each), optionally
`x_requires_grad = false` and `groups`. The rules the steps are judged by are the problem's, in
`[ranks.phases]`: `setup`, `forward`, and `backward` (or `backward_without_grad` where x does not require grad).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from .api import Params, Tensors
from .ranks import RanksStep
from .ranks_rules import groups


def module_inputs(params: Params, generator: torch.Generator, features: int) -> Tensors:
    """The float64 inputs of kit_ranks' steps() for every group (`g<index>.` before each name): x<i> of the
    test's leading[i] dimensions and `features`, the output's weights grad<i> alike, and x_after_step of the
    first call's shape. Drawn per group, so that groups side by side compute different things."""
    drawn = {}
    for index in range(len(params.get("groups", [None]))):
        for call, leading in enumerate(params["leading"]):
            for name in ("x", "grad"):
                drawn[f"g{index}.{name}{call}"] = torch.randn(*leading, features, generator=generator,
                                                              dtype=torch.float64)
        drawn[f"g{index}.x_after_step"] = torch.randn(*params["leading"][0], features, generator=generator,
                                                      dtype=torch.float64)
    return drawn


def module_truth(params: Params, inputs: Tensors, forward: Callable, weights: Tensors,
                 learning_rate: float) -> Tensors:
    """What steps() gives on every rank for the full model forward(weights, x), in float64, each output named by
    rank: x.after<i> (x itself), out<i> and x.grad<i> with the weights' gradients accumulated over the calls, as
    a rank's module accumulates them, then out_after_step after one SGD step. Computed once per group."""
    found = {}
    for index, group in enumerate(groups(params)):
        outputs = _steps_truth(params, inputs, f"g{index}.", forward, weights, learning_rate)
        found.update({f"{name}@{rank}": tensor for rank in group for name, tensor in outputs.items()})
    return found


def _steps_truth(params, inputs, prefix, forward, weights, learning_rate):
    # Copies: the step below changes them in place, and every group starts from the same weights.
    weights = {name: tensor.detach().to(torch.float64, copy=True).requires_grad_() for name, tensor in weights.items()}
    found = {}
    with torch.enable_grad():
        for call in range(len(params["leading"])):
            x = inputs[f"{prefix}x{call}"].double().requires_grad_()
            out = forward(weights, x)
            (out * inputs[f"{prefix}grad{call}"].double()).sum().backward()
            found[f"x.after{call}"], found[f"out{call}"], found[f"x.grad{call}"] = x.detach(), out.detach(), x.grad
    with torch.no_grad():
        for weight in weights.values():
            weight -= learning_rate * weight.grad
        found["out_after_step"] = forward(weights, inputs[f"{prefix}x_after_step"].double())
    return found


def module_steps(params: Params, features: int, learning_rate: float) -> list[RanksStep]:
    """The steps of kit_ranks' set_up() and steps(): set-up, each call (x unchanged, the output, the input
    gradient where x requires grad; the forward and backward passes), then the output after the SGD step."""
    with_grad = params.get("x_requires_grad", True)
    found = [RanksStep("set-up", phases={"setup": "setup"})]
    for call, leading in enumerate(params["leading"]):
        shape = (*leading, features)
        outputs = {f"x.after{call}": "x, which the call must not modify", f"out{call}": "the output",
                   **({f"x.grad{call}": "the input gradient x.grad"} if with_grad else {})}
        found.append(RanksStep(f"x of shape {shape}" + ("" if with_grad else " not requiring grad"), outputs,
                               {f"forward{call}": "forward",
                                f"backward{call}": "backward" if with_grad else "backward_without_grad"},
                               {"x": torch.Size(shape).numel(), "out": torch.Size(shape).numel()},
                               frozenset({f"x.after{call}"})))
    found.append(RanksStep(f"after one SGD step (lr={learning_rate})", {"out_after_step": "the output"},
                           {"forward_after_step": "forward"},
                           {"out": torch.Size((*params["leading"][0], features)).numel()}))
    return found


__all__ = ["module_inputs", "module_steps", "module_truth"]
