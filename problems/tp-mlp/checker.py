"""Trusted checker: the full MLP's weights and each group's inputs from a seed; every rank's results compared
with the full MLP computed here in float64; and every rule decided here from what the driver observed.

The tolerance is 1e-5 of each tensor's largest magnitude: more than ten times the error of the full MLP's own
float32 computation at these sizes, and twenty times less than the tanh approximation of GELU moves the output.
When a result is wrong in a way a classic mistake explains exactly (fc2's bias counted on every rank, the tanh
GELU, an input gradient never summed over the ranks), the message says so.

The driver runs beside the submission, which can change it, so its report (`observed@<rank>`: the storages
the module holds after load_full, the collectives of each pass) is hostile input: validated field by field,
able to fail a test, never to pass one. Every decision on it is made here. On a hidden test a message shows no figure the report chose (a
count, a size, a name of the submission's), since any of them could carry a hidden input out; it shows the
limits computed here and the operator names this process knows.
"""

import functools
import json
import math
from typing import NamedTuple

import torch
import torch.distributed  # noqa: F401  (registers the collective operators known_collectives lists)
import torch.nn.functional as F

from runner import compare

RELATIVE_TOLERANCE = 1e-5
LEARNING_RATE = 0.1  # the driver's SGD step
FULL_TENSORS = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")
ALL_REDUCES = {"c10d::allreduce_", "c10d::allreduce_coalesced_", "_c10d_functional::all_reduce",
               "_c10d_functional::all_reduce_", "_c10d_functional::all_reduce_coalesced",
               "_c10d_functional::all_reduce_coalesced_"}
# Operators of the collective namespaces that move no data: waiting on a functional collective's result.
BOOKKEEPING = {"_c10d_functional::wait_tensor", "_c10d_functional::_wrap_tensor_autograd"}
COLLECTIVE_NAMESPACES = ("c10d", "_c10d_functional", "_c10d_functional_autograd", "_dtensor")
MAX_REPORT_BYTES = 1 << 20
MAX_ENTRIES = 10_000


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
    """None if every rank's results are the full MLP's and keep the rules, else what differs, on which rank,
    and why if known."""
    world = params["world_size"]
    groups = params.get("groups", [list(range(world))])
    reports = {}
    for rank in range(world):
        try:
            reports[rank] = read_report(got.get(f"observed@{rank}"), params)
        except Malformed as error:
            return (f"rank {rank} of {world}: the judge's record of what the module held and which collectives it "
                    f"issued came back malformed ({error}); the submission changed the judge's driver")
    if params["d_hidden"] % tensor_parallel_size(params):
        return refusal_message(params, groups, reports)
    for index, ranks in enumerate(groups):
        message = check_group(params, inputs, got, expected, index, ranks, reports)
        if message:
            return message
    return None


def check_group(params, inputs, got, expected, index, ranks, reports):
    for rank in ranks:
        message = holdings_message(params, inputs, len(ranks), reports[rank])
        if message:
            return f"{place(params, ranks, rank, 'after load_full')}: {message}"
        if not reports[rank].parameters:
            return (f"{place(params, ranks, rank, 'after load_full')}: the module has no parameters; its trainable "
                    "values must be nn.Parameters, so that an optimiser built from module.parameters() can train them")
    full = FullMLP(inputs)
    results = [full.step(inputs[f"g{index}.x{call}"], inputs[f"g{index}.grad{call}"])
               for call in range(len(params["leading"]))]
    with_grad = params.get("x_requires_grad", True)
    for call, (out, x_grad) in enumerate(results):
        x = inputs[f"g{index}.x{call}"]
        for group_rank, rank in enumerate(ranks):
            passes = reports[rank].passes
            where = place(params, ranks, rank, f"x of shape {tuple(x.shape)}" + ("" if with_grad else
                                                                                  " not requiring grad"))
            after = got.get(f"x.after{call}@{rank}")
            if compare.layout("x", after, x) or not torch.equal(after, x):
                return f"{where}: the call changed its input x in place; x must not be modified"
            message = differs("the output", got, expected, f"out{call}@{rank}", out)
            if message:
                diagnosis = output_diagnosis(full, x, got[f"out{call}@{rank}"], len(ranks))
                if "groups" in params and not diagnosis:
                    diagnosis = groups_diagnosis(params, inputs, full, call, got[f"out{call}@{rank}"])
                return f"{where}: {message}{diagnosis}"
            backward = pass_message("backward", passes[f"backward{call}"], x.numel() if with_grad else None)
            if with_grad:
                message = differs("the input gradient x.grad", got, expected, f"x.grad{call}@{rank}", x_grad)
                if message:
                    diagnosis = gradient_diagnosis(full, x, inputs[f"g{index}.grad{call}"],
                                                   got[f"x.grad{call}@{rank}"], group_rank, len(ranks))
                    return f"{where}: {message}{diagnosis or (f' ({backward})' if backward else '')}"
            message = pass_message("forward", passes[f"forward{call}"], x.numel()) or backward
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
        message = pass_message("forward", reports[rank].passes["forward_after_step"], after.numel())
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


class Malformed(Exception):
    """The driver's report is not what the driver writes."""


class Report(NamedTuple):
    """One rank's report, validated: what the driver observed, in the driver's terms."""

    refused: str | None  # on a split that is not even: "ValueError" when the constructor raised it
    parameters: int  # tensors in module.parameters() after load_full
    held_bytes: int  # of every storage the module keeps after load_full
    held_full: list  # the full tensors passed to load_full whose storage the module keeps
    largest: list  # the largest storages kept: (where the module holds it, its bytes, the full tensor or None)
    alive: list  # the full tensors passed to load_full whose storage outlived the caller's references
    passes: dict  # "forward0", "backward0", ..., "forward_after_step": [(operator, calls, elements of one)]


def read_report(tensor, params):
    """The report a rank's driver sent as `observed`, checked field by field; Malformed if any is not as the
    driver writes it."""
    if tensor is None or tensor.dtype != torch.uint8 or tensor.dim() != 1 or tensor.numel() > MAX_REPORT_BYTES:
        raise Malformed("missing, or not a byte string of a bounded size")
    try:
        report = json.loads(tensor.contiguous().numpy().tobytes().decode())
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Malformed("not JSON") from None
    if not isinstance(report, dict):
        raise Malformed("not an object")
    if params["d_hidden"] % tensor_parallel_size(params):
        if report.get("refused") not in ("ValueError", None):
            raise Malformed("refused is neither ValueError nor null")
        return Report(report.get("refused"), 0, 0, [], [], [], {})
    held = report.get("held")
    if not isinstance(held, dict):
        raise Malformed("held is not an object")
    largest = [(_text(holder, "a holder"), _count(size, "a held size"), _full_name(full, "a held storage", True))
               for holder, size, full in _entries(held.get("largest"), "the largest held", 3)]
    calls = range(len(params["leading"]))
    wanted = {f"{kind}{call}" for call in calls for kind in ("forward", "backward")} | {"forward_after_step"}
    passes = report.get("passes")
    if not isinstance(passes, dict) or set(passes) != wanted:
        raise Malformed("the passes are not the calls made")
    passes = {name: [(_text(operator, "an operator"), _count(count, "a call count"), _count(size, "elements"))
                     for operator, count, size in _entries(seen, name, 3)] for name, seen in passes.items()}
    return Report(None, _count(report.get("parameters"), "parameters"), _count(held.get("bytes"), "held bytes"),
                  _full_names(held.get("full"), "held full tensors"), largest,
                  _full_names(report.get("alive"), "alive"), passes)


def _entries(value, what, width=None):
    if not isinstance(value, list) or len(value) > MAX_ENTRIES or (width is not None and not all(
            isinstance(item, list) and len(item) == width for item in value)):
        raise Malformed(f"{what} is not a list of the driver's entries")
    return value


def _count(value, what):
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 48:
        raise Malformed(f"{what} is not a count")
    return value


def _text(value, what):
    if not isinstance(value, str):
        raise Malformed(f"{what} is not a name")
    return value[:120]


def _full_name(value, what, may_be_none):
    if value not in FULL_TENSORS and not (may_be_none and value is None):
        raise Malformed(f"{what} names no tensor passed to load_full")
    return value


def _full_names(value, what):
    return sorted({_full_name(name, what, False) for name in _entries(value, what)})


def refusal_message(params, groups, reports):
    d_model, d_hidden, world = params["d_model"], params["d_hidden"], len(groups[0])
    for rank, report in reports.items():
        if report.refused != "ValueError":
            return (f"{place(params, groups[0], rank, 'constructing')}: TensorParallelMLP(d_model={d_model}, "
                    f"d_hidden={d_hidden}) on {world} ranks returned a module; expected ValueError: {d_hidden} hidden "
                    f"units do not split evenly over {world} ranks, and flooring would silently drop "
                    f"{d_hidden % world} of them")
    return None


def holdings_message(params, inputs, world, report):
    """Why the storages the module keeps after load_full break the bytes rule, or None."""
    d_model, d_hidden = params["d_model"], params["d_hidden"]
    limit = ((2 * d_hidden * d_model + d_hidden) // world + d_model) * 4
    share = f"its 1/{world} share of fc1 and fc2 plus fc2's bias of d_model={d_model}, in float32"
    out_of_sight = [name for name in report.alive if name not in report.held_full]
    full_bytes = {name: inputs[name].numel() * inputs[name].element_size() for name in FULL_TENSORS}
    total = report.held_bytes + sum(full_bytes[name] for name in out_of_sight)
    holders = ""
    if compare.reveals_values():
        listed = [f"{holder}: {size} bytes" + (f", the storage of the {full} passed to load_full" if full else "")
                  for holder, size, full in report.largest]
        listed += [f"{full_bytes[name]} bytes kept alive out of sight: the storage of the {name} passed to load_full"
                   for name in out_of_sight]
        holders = f" ({'; '.join(listed)})"
    if total > limit:
        held = f"{total} bytes of tensor storage" if compare.reveals_values() else "more tensor storage than allowed"
        return (f"the module holds {held}; the limit is {limit} bytes, {share}{holders}. A tensor "
                "keeps its whole storage alive: a slice of a full weight (and .contiguous() of a slice that is "
                "already contiguous) is a view of all of it; copy the shard instead (.clone(), or copy_ into a "
                "parameter of the shard's size)")
    if report.alive:
        return (f"after load_full returned and the caller dropped fc1 and fc2, the module still keeps the storage "
                f"of {', '.join(report.alive)}{holders}: it aliases the caller's tensors, so changing them would "
                "change this module; copy what it needs")
    return None


@functools.cache
def known_collectives():
    """The collective operators this process's torch registers, by their names without an overload."""
    return {name for name in torch._C._dispatch_get_all_op_names() if name.split("::")[0] in COLLECTIVE_NAMESPACES}


def pass_message(kind, seen, elements):
    """Why the collectives of a forward or backward pass break the rule, or None: exactly one all-reduce, of
    `elements` (those of the partial outputs, or of the partial input gradients), and no other collective;
    none at all when `elements` is None (a backward pass whose x does not require grad). The harness refuses
    other collectives where they are called, on any thread; this is the trusted side's own reading of what
    the driver saw."""
    moving = [(operator.rsplit(".", 1)[0], calls, size) for operator, calls, size in seen
              if operator.rsplit(".", 1)[0] not in BOOKKEEPING]
    others = sorted({operator for operator, _, _ in moving if operator not in ALL_REDUCES})
    if others:
        named = [operator for operator in others if operator in known_collectives()]
        unknown = ["collectives this torch does not register"] if len(named) < len(others) else []
        return (f"the {kind} pass issued {', '.join(named + unknown)}; all-reduce is the only collective this "
                "problem allows: one all-reduce of the partial results already gives every rank the full sum, and "
                "gathering weights or outputs instead moves world-size times as much data")
    count = sum(calls for _, calls, _ in moving)
    reveal = compare.reveals_values()
    if elements is None:
        if not count:
            return None
        issued = f"issued {all_reduces(count)}" if reveal else "issued all-reduces"
        return (f"the backward pass {issued}; none is needed when x does not require grad: only the input "
                "gradient is a sum over the ranks, and each rank's parameter gradients are its own")
    partials = "partial outputs" if kind == "forward" else "partial input gradients"
    if count != 1:
        issued = f"issued {all_reduces(count)}" if reveal else "issued another number of all-reduces"
        needless = "" if kind == "forward" else ", while the output gradient, the same on every rank, needs none"
        return f"the {kind} pass {issued}; exactly one is expected: the {partials} of the ranks summed once{needless}"
    size = next(size for _, calls, size in moving if calls)
    if size != elements:
        summed = f"summed {size} element{'' if size == 1 else 's'}" if reveal else "summed another number of elements"
        return (f"the {kind} pass's all-reduce {summed}; it must sum the {partials}, {elements} elements: an "
                "all-reduce of anything else leaves them to be moved some other way")
    return None


def all_reduces(count):
    return f"{count} all-reduce{'' if count == 1 else 's'}"


def tensor_parallel_size(params):
    return len(params["groups"][0]) if "groups" in params else params["world_size"]


def place(params, ranks, rank, what):
    if "groups" in params:
        return (f"rank {rank} (rank {ranks.index(rank)} of the tensor-parallel group of ranks "
                f"{', '.join(map(str, ranks))}), {what}")
    return f"rank {rank} of {len(ranks)}, {what}"
