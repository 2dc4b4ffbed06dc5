"""Trusted: the full MLP's weights and each group's inputs from a seed; the full MLP in float64 as the truth of
every rank's steps; and the classic mistakes a wrong value is compared with (fc2's bias counted on every rank,
the tanh GELU, the default group, an input gradient never summed, or summed twice)."""
import math

import torch
import torch.nn.functional as F

from runner import kit

LEARNING_RATE = 0.1  # the driver's SGD step
FULL = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")
SAYS = kit.declared(__file__)["ranks"]["says"]


def inputs(params, generator):
    d_model, d_hidden = params["d_model"], params["d_hidden"]

    def uniform(*shape, fan_in):
        # nn.Linear's own initialisation, so the activations sit where a real layer's do.
        return (torch.rand(*shape, generator=generator, dtype=torch.float64) * 2 - 1) / math.sqrt(fan_in)

    drawn = {"fc1.weight": uniform(d_hidden, d_model, fan_in=d_model), "fc1.bias": uniform(d_hidden, fan_in=d_model),
             "fc2.weight": uniform(d_model, d_hidden, fan_in=d_hidden), "fc2.bias": uniform(d_model, fan_in=d_hidden)}
    drawn.update(kit.module_inputs(params, generator, d_model))
    return {name: tensor.float() for name, tensor in drawn.items()}


def mlp(w, x, hidden=slice(None), approximate="none", bias=1.0):
    h = F.gelu(F.linear(x.double(), w["fc1.weight"][hidden], w["fc1.bias"][hidden]), approximate=approximate)
    return F.linear(h, w["fc2.weight"][:, hidden]) + bias * w["fc2.bias"]


def full(inputs):
    return {name: inputs[name].double() for name in FULL}


def truth(params, inputs):
    return kit.module_truth(params, inputs, mlp, full(inputs), LEARNING_RATE)


def steps(params):
    return kit.module_steps(params, params["d_model"], LEARNING_RATE)


def diagnose(name, rank, params, inputs, got, truth):
    return SAYS["after_step"] if name == "out_after_step" else ""


def outputs(params, inputs, bias=1.0, approximate="none"):
    """Each call's output on every rank, with fc2's bias counted `bias` times ("size": once per rank)."""
    return kit.by_rank(params, lambda index, group, position: {f"out{call}": mlp(
        full(inputs), inputs[f"g{index}.x{call}"], approximate=approximate, bias=len(group) if bias == "size" else bias)
        for call in range(len(params["leading"]))})


def across_groups(params, inputs):
    """What sharding over the whole world and summing across the groups gives, as the default group does."""
    world, w, shard = params["world_size"], full(inputs), params["d_hidden"] // params["world_size"]
    of = {rank: index for index, group in enumerate(params.get("groups", [])) for rank in group}
    return {f"out{call}@{rank}": w["fc2.bias"] + sum(
        mlp(w, inputs[f"g{of[r]}.x{call}"], slice(r * shard, (r + 1) * shard), bias=0.0) for r in range(world))
        for call in range(len(params["leading"])) for rank in of}


def own_shard(params, inputs, summed=False):
    """Each rank's x.grad when only its own hidden units are backpropagated (times the group's size, summed)."""
    def gradients(index, group, position):
        shard = params["d_hidden"] // len(group)
        hidden, found = slice(position * shard, (position + 1) * shard), {}
        for call in range(len(params["leading"])):
            x = inputs[f"g{index}.x{call}"].double().requires_grad_()
            out = (mlp(full(inputs), x, hidden, bias=0.0) * inputs[f"g{index}.grad{call}"].double()).sum()
            found[f"x.grad{call}"] = torch.autograd.grad(out, x)[0] * (len(group) if summed else 1)
        return found
    return kit.by_rank(params, gradients) if params.get("x_requires_grad", True) else {}
