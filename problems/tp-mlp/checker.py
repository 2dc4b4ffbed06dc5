"""Trusted checker: the full MLP's weights and each group's inputs from a seed, and every rank's results
compared with the full MLP computed here in float64.

The tolerance is 1e-5 of each tensor's largest magnitude: more than ten times the error of the full MLP's own
float32 computation at these sizes, and twenty times less than the tanh approximation of GELU moves the output.
When a result is wrong in a way a classic mistake explains exactly (fc2's bias counted on every rank, the tanh
GELU, an input gradient never summed over the ranks), the message says so.
"""

import math

import torch
import torch.nn.functional as F

from runner import compare

RELATIVE_TOLERANCE = 1e-5
LEARNING_RATE = 0.1  # the driver's SGD step


def inputs(params, generator):
    d_model, d_hidden = params["d_model"], params["d_hidden"]

    def uniform(*shape, fan_in):
        # nn.Linear's own initialisation, so the activations sit where a real layer's do.
        bound = 1 / math.sqrt(fan_in)
        return (torch.rand(*shape, generator=generator, dtype=torch.float64) * 2 - 1) * bound

    tensors = {"fc1.weight": uniform(d_hidden, d_model, fan_in=d_model), "fc1.bias": uniform(d_hidden, fan_in=d_model),
               "fc2.weight": uniform(d_model, d_hidden, fan_in=d_hidden), "fc2.bias": uniform(d_model, fan_in=d_hidden)}
    for index in range(len(params.get("groups", [None]))):
        for call, leading in enumerate(params["leading"]):
            tensors[f"g{index}.x{call}"] = torch.randn(*leading, d_model, generator=generator, dtype=torch.float64)
            tensors[f"g{index}.grad{call}"] = torch.randn(*leading, d_model, generator=generator, dtype=torch.float64)
        tensors[f"g{index}.x_after_step"] = torch.randn(*params["leading"][0], d_model, generator=generator,
                                                        dtype=torch.float64)
    return {name: tensor.float() for name, tensor in tensors.items()}


def check(params, inputs, got, expected):
    """None if every rank's results are the full MLP's, else what differs, on which rank, and why if known."""
    world = params["world_size"]
    groups = params.get("groups", [list(range(world))])
    if params["d_hidden"] % len(groups[0]):
        return None  # the driver itself insists on the ValueError
    for index, ranks in enumerate(groups):
        message = check_group(params, inputs, got, expected, index, ranks)
        if message:
            return message
    return None


def check_group(params, inputs, got, expected, index, ranks):
    full = FullMLP(inputs)
    results = [full.step(inputs[f"g{index}.x{call}"], inputs[f"g{index}.grad{call}"])
               for call in range(len(params["leading"]))]
    for call, (out, x_grad) in enumerate(results):
        x = inputs[f"g{index}.x{call}"]
        for group_rank, rank in enumerate(ranks):
            where = place(params, ranks, rank, f"x of shape {tuple(x.shape)}")
            message = differs("the output", got, expected, f"out{call}@{rank}", out)
            if message:
                diagnosis = output_diagnosis(full, x, got[f"out{call}@{rank}"], len(ranks))
                if "groups" in params and not diagnosis:
                    diagnosis = groups_diagnosis(params, inputs, full, call, got[f"out{call}@{rank}"])
                return f"{where}: {message}{diagnosis}"
            message = differs("the input gradient x.grad", got, expected, f"x.grad{call}@{rank}", x_grad)
            if message:
                diagnosis = gradient_diagnosis(full, x, inputs[f"g{index}.grad{call}"], got[f"x.grad{call}@{rank}"],
                                               group_rank, len(ranks))
                return f"{where}: {message}{diagnosis or backward_note(got, expected, f'all_reduces{call}@{rank}')}"
            message = count_message(got, expected, f"all_reduces{call}@{rank}")
            if message:
                return f"{where}: {message}"
    full.apply_sgd_step()
    with torch.no_grad():
        after = full.forward(inputs[f"g{index}.x_after_step"])
    for rank in ranks:
        message = differs("the output", got, expected, f"out_after_step@{rank}", after)
        if message:
            return (f"{place(params, ranks, rank, f'after one SGD step (lr={LEARNING_RATE}) on both')}: {message} — "
                    "the outputs agreed before the step, so the parameters' gradients are not this rank's share of "
                    "the full MLP's (or a trainable value is not an nn.Parameter the optimiser sees)")
        message = count_message(got, expected, f"all_reduces_after_step@{rank}")
        if message:
            return f"{place(params, ranks, rank, 'after the step, under no_grad')}: {message}"
    return None


class FullMLP:
    """fc2(gelu(fc1(x))) in float64, with gradients accumulated over calls as the rank's module accumulates them."""

    def __init__(self, inputs):
        self.weights = {name: inputs[name].double().requires_grad_() for name in
                        ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")}

    def forward(self, x, *, hidden=slice(None), approximate="none", with_bias=1.0):
        w = self.weights
        h = F.gelu(F.linear(x.double(), w["fc1.weight"][hidden], w["fc1.bias"][hidden]), approximate=approximate)
        return F.linear(h, w["fc2.weight"][:, hidden]) + with_bias * w["fc2.bias"]

    def step(self, x, grad):
        x = x.double().requires_grad_()
        out = self.forward(x)
        (out * grad.double()).sum().backward()
        return out.detach(), x.grad

    def apply_sgd_step(self):
        with torch.no_grad():
            for weight in self.weights.values():
                weight -= LEARNING_RATE * weight.grad

    def shard_input_gradient(self, x, grad, group_rank, world):
        """What x.grad is on one rank when only its own hidden units are backpropagated: one term of the sum."""
        shard = self.weights["fc1.bias"].shape[0] // world
        x = x.double().requires_grad_()
        partial = self.forward(x, hidden=slice(group_rank * shard, (group_rank + 1) * shard), with_bias=0.0)
        (partial * grad.double()).sum().backward(inputs=[x])
        return x.grad


def differs(what, got, expected, name, exact):
    mismatch = compare.layout(what, got.get(name), expected[name])
    if mismatch:
        return mismatch
    return compare.tensors(what, got[name].double(), exact, atol=tolerance(exact), rtol=0)


def tolerance(exact):
    return RELATIVE_TOLERANCE * max(exact.abs().max().item(), 1e-30)


def matches(value, alternative):
    return (value.double() - alternative).abs().max().item() <= tolerance(alternative)


def output_diagnosis(full, x, out, world):
    with torch.no_grad():
        if world > 1 and matches(out, full.forward(x, with_bias=world)):
            extra = "one extra copy" if world == 2 else f"{world - 1} extra copies"
            return (f" — it is the full output plus {extra} of fc2's bias: every rank added the bias before the "
                    "all-reduce, so the sum counts it once per rank; add it once, after the sum (or on one rank only)")
        if matches(out, full.forward(x, approximate="tanh")):
            return (" — it is what the tanh approximation of GELU gives; the full MLP uses the exact erf form, "
                    "F.gelu(h)")
    return ""


def groups_diagnosis(params, inputs, full, call, out):
    """When the module sharded over the whole world and summed across the groups, as the default group does."""
    world = params["world_size"]
    shard = params["d_hidden"] // world
    with torch.no_grad():
        total = full.weights["fc2.bias"].clone()
        for rank in range(world):
            index = next(i for i, ranks in enumerate(params["groups"]) if rank in ranks)
            total = total + full.forward(inputs[f"g{index}.x{call}"], hidden=slice(rank * shard, (rank + 1) * shard),
                                         with_bias=0.0)
    if not matches(out, total):
        return ""
    return (f" — it is what sharding over all {world} ranks of the default group and summing across the groups "
            "gives: rank, world size and every collective must come from `group`")


def gradient_diagnosis(full, x, grad, got, group_rank, world):
    own = full.shard_input_gradient(x, grad, group_rank, world)
    if matches(got, own):
        return (" — it is exactly this rank's own hidden shard's contribution: the input gradient is a sum of "
                "one term per rank and must be all-reduced in backward (Megatron's f: identity in forward, "
                "all-reduce in backward)")
    if matches(got, world * own):
        return (f" — it is {world} times this rank's own hidden shard's contribution: the output gradient, already "
                "the same on every rank, was summed over the ranks in backward (as the differentiable all-reduce "
                "of torch.distributed.nn does), and the input gradient's terms were never summed")
    return ""


def backward_note(got, expected, name):
    if compare.layout("the all-reduce counts", got.get(name), expected[name]) or int(got[name][1]) == 1:
        return ""
    return f" ({backward_message(int(got[name][1]))})"


def count_message(got, expected, name):
    """Why the all-reduces the driver counted in forward (and backward, when it ran) are not one each."""
    mismatch = compare.layout("the all-reduce counts", got.get(name), expected[name])
    if mismatch:
        return mismatch
    counts = [int(count) for count in got[name]]
    if counts[0] != 1:
        return forward_message(counts[0])
    if len(counts) > 1 and counts[1] != 1:
        return backward_message(counts[1])
    return None


def forward_message(count):
    return (f"the forward pass issued {count} all-reduces; exactly one is expected: the partial outputs of the "
            "ranks summed once, after fc2 and before its bias")


def backward_message(count):
    return (f"the backward pass issued {count} all-reduces; exactly one is expected: the partial input gradients "
            "of the ranks summed once, while the output gradient, the same on every rank, needs none")


def place(params, ranks, rank, what):
    if "groups" in params:
        return (f"rank {rank} (rank {ranks.index(rank)} of the tensor-parallel group of ranks "
                f"{', '.join(map(str, ranks))}), {what}")
    return f"rank {rank} of {len(ranks)}, {what}"
