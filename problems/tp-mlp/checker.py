"""Trusted: the full MLP's weights and each group's inputs from a seed; every rank's reports and results judged
by the kit (runner/kit/ranks.py) under problem.toml's [ranks] rules, against the full MLP in float64; and the
classic mistake a wrong value reproduces named (fc2's bias counted on every rank, the tanh GELU, the default
group, an input gradient never summed, or summed twice)."""
import math

import torch
import torch.nn.functional as F

from runner.kit import ranks

DECLARED = ranks.declared(__file__)
LEARNING_RATE = 0.1  # the driver's SGD step
FULL = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")


def inputs(params, generator):
    d_model, d_hidden = params["d_model"], params["d_hidden"]

    def uniform(*shape, fan_in):
        # nn.Linear's own initialisation, so the activations sit where a real layer's do.
        return (torch.rand(*shape, generator=generator, dtype=torch.float64) * 2 - 1) / math.sqrt(fan_in)

    drawn = {"fc1.weight": uniform(d_hidden, d_model, fan_in=d_model), "fc1.bias": uniform(d_hidden, fan_in=d_model),
             "fc2.weight": uniform(d_model, d_hidden, fan_in=d_hidden), "fc2.bias": uniform(d_model, fan_in=d_hidden)}
    drawn.update(ranks.step_inputs(params, generator, d_model))
    return {name: tensor.float() for name, tensor in drawn.items()}


def mlp(w, x, hidden=slice(None), approximate="none", bias=1.0):
    h = F.gelu(F.linear(x.double(), w["fc1.weight"][hidden], w["fc1.bias"][hidden]), approximate=approximate)
    return F.linear(h, w["fc2.weight"][:, hidden]) + bias * w["fc2.bias"]


def check(params, inputs, got, expected):
    full = {name: inputs[name] for name in FULL}
    return ranks.check_module(params, inputs, got, DECLARED,
                              lambda index: ranks.steps_truth(params, inputs, f"g{index}.", mlp, full, LEARNING_RATE),
                              lambda index, group: diagnosis(params, inputs, index, len(group)))


def diagnosis(params, inputs, index, size):
    """diagnose(name, call, position in the group, got): " — <the classic mistake>" when got is what it gives."""
    w, says, shard = {name: inputs[name].double() for name in FULL}, DECLARED["mistakes"], params["d_hidden"] // size

    def diagnose(name, call, position, got):
        x, grad = inputs[f"g{index}.x{call}"], inputs[f"g{index}.grad{call}"]
        if name.startswith("out"):
            candidates = {"bias_every_rank": lambda: mlp(w, x, bias=size),
                          "tanh_gelu": lambda: mlp(w, x, approximate="tanh")}
            if "groups" in params:
                candidates["ignores_group"] = lambda: across_groups(params, inputs, w, call)
        else:
            own = lambda: shard_gradient(w, x, grad, slice(position * shard, (position + 1) * shard))  # noqa: E731
            candidates = {"own_shard": own, "own_shard_summed": lambda: size * own()}
        for mistake, candidate in candidates.items():
            if ranks.matches(got, candidate(), DECLARED["relative_tolerance"]):
                return f" — {says[mistake].format(size=size)}"
        return ""
    return diagnose


def across_groups(params, inputs, w, call):
    """What sharding over the whole world and summing across the groups gives, as the default group does."""
    world = params["world_size"]
    shard, total = params["d_hidden"] // world, w["fc2.bias"].clone()
    for rank in range(world):
        index = next(i for i, group in enumerate(params["groups"]) if rank in group)
        total = total + mlp(w, inputs[f"g{index}.x{call}"], slice(rank * shard, (rank + 1) * shard), bias=0.0)
    return total


def shard_gradient(w, x, grad, hidden):
    """What x.grad is on one rank when only its own hidden units are backpropagated: one term of the sum."""
    x = x.double().requires_grad_()
    return torch.autograd.grad((mlp(w, x, hidden, bias=0.0) * grad.double()).sum(), x)[0]
