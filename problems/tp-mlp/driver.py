"""Runs on every rank inside the sandbox: builds this rank's TensorParallelMLP from the full layers, checks what
it keeps, then runs forward and backward on each input and one SGD step, counting the all-reduces of each pass.

The counts go back as outputs, so the trusted checker can weigh them with the values they produced.
"""

import gc
import weakref

import torch
import torch.distributed as dist
from torch import nn

LEARNING_RATE = 0.1
# Every other collective is forbidden by the problem, so these are all that can be counted here.
ALL_REDUCES = ("c10d::allreduce_", "c10d::allreduce_coalesced_", "_c10d_functional::all_reduce",
               "_c10d_functional::all_reduce_", "_c10d_functional::all_reduce_coalesced",
               "_c10d_functional::all_reduce_coalesced_")


def run(solution, params, inputs, ctx):
    group, index, where = tensor_parallel_group(params, ctx)
    world = dist.get_world_size(group)
    d_model, d_hidden = params["d_model"], params["d_hidden"]
    if d_hidden % world:
        return expect_refusal(solution, d_model, d_hidden, group, world, where, ctx)
    module, passed = loaded(solution, inputs, d_model, d_hidden, group)
    check_holdings(module, passed, d_model, d_hidden, world, where, ctx)
    # What torch.optim.SGD(module.parameters()) would hold if it were built here.
    parameters = list(module.parameters())
    if not parameters:
        raise ctx.WrongAnswer(f"{where}the module has no parameters after load_full; its trainable values must "
                              "be nn.Parameters, so that an optimiser built from module.parameters() can train them")
    outputs = {}
    for call in range(len(params["leading"])):
        given = inputs[f"g{index}.x{call}"]
        x = given.clone().requires_grad_()
        before = all_reduce_count(ctx)
        out = module(x)
        forward = all_reduce_count(ctx) - before
        check_output(out, given, where, ctx)
        if not out.requires_grad:
            raise ctx.WrongAnswer(f"{where}x of shape {tuple(x.shape)}: the output does not require grad; it must "
                                  "be differentiable with respect to x and to the module's parameters")
        if not torch.equal(x.detach(), given):
            raise ctx.WrongAnswer(f"{where}forward changed its input x in place; x must not be modified")
        before = all_reduce_count(ctx)
        (out * inputs[f"g{index}.grad{call}"]).sum().backward()
        backward = all_reduce_count(ctx) - before
        if x.grad is None:
            raise ctx.WrongAnswer(f"{where}x of shape {tuple(x.shape)}: x.grad is None after backward; the output "
                                  "is not connected to x")
        outputs[f"out{call}"] = out.detach()
        outputs[f"x.grad{call}"] = x.grad
        outputs[f"all_reduces{call}"] = torch.tensor([forward, backward])
    sgd_step(parameters)
    given = inputs[f"g{index}.x_after_step"]
    before = all_reduce_count(ctx)
    with torch.no_grad():
        out = module(given)
    outputs["all_reduces_after_step"] = torch.tensor([all_reduce_count(ctx) - before])
    check_output(out, given, where, ctx)
    outputs["out_after_step"] = out
    return outputs


def tensor_parallel_group(params, ctx):
    """(the group to pass, or None for the default one; the index of this rank's inputs; the words that begin
    a message, after the rank the harness names)."""
    if "groups" not in params:
        return None, 0, ""
    # new_group is collective over the whole world: every rank creates every group, in the same order.
    groups = [dist.new_group(ranks) for ranks in params["groups"]]
    index = next(i for i, ranks in enumerate(params["groups"]) if ctx.rank in ranks)
    ranks = params["groups"][index]
    where = f"as rank {ranks.index(ctx.rank)} of the tensor-parallel group of ranks {', '.join(map(str, ranks))}: "
    return groups[index], index, where


def expect_refusal(solution, d_model, d_hidden, group, world, where, ctx):
    try:
        solution.TensorParallelMLP(d_model, d_hidden, group=group)
    except ValueError:
        return {"refused": torch.ones(())}
    raise ctx.WrongAnswer(f"{where}TensorParallelMLP(d_model={d_model}, d_hidden={d_hidden}) on {world} ranks "
                          f"returned a module; expected ValueError: {d_hidden} hidden units do not split evenly over "
                          f"{world} ranks, and flooring would silently drop {d_hidden % world} of them")


def loaded(solution, inputs, d_model, d_hidden, group):
    """The module after load_full, and for each full tensor passed to it: (weak reference to its storage,
    its address, its bytes). The full layers are dropped on return, as a caller would drop them."""
    fc1, fc2 = nn.Linear(d_model, d_hidden), nn.Linear(d_hidden, d_model)
    full = {"fc1.weight": fc1.weight, "fc1.bias": fc1.bias, "fc2.weight": fc2.weight, "fc2.bias": fc2.bias}
    with torch.no_grad():
        for name, tensor in full.items():
            tensor.copy_(inputs[name])
    module = solution.TensorParallelMLP(d_model, d_hidden, group=group)
    module.load_full(fc1, fc2)
    passed = {name: (weakref.ref(tensor.untyped_storage()), tensor.untyped_storage().data_ptr(),
                     tensor.untyped_storage().nbytes()) for name, tensor in full.items()}
    return module, passed


def check_holdings(module, passed, d_model, d_hidden, world, where, ctx):
    """The bytes rule: the storages the module keeps alive, each counted whole, within this rank's share."""
    held = held_storages(module)
    gc.collect()
    alive = {name: address for name, (storage, address, _) in passed.items() if storage() is not None}
    by_address = {address: name for name, address in alive.items()}
    hidden = {name: passed[name][2] for name, address in alive.items() if address not in held}
    total = sum(size for _, size in held.values()) + sum(hidden.values())
    limit = ((2 * d_hidden * d_model + d_hidden) // world + d_model) * 4
    holders = [f"{holder}: {size} bytes" + (f", the storage of the {by_address[address]} passed to load_full"
                                            if address in by_address else "")
               for address, (holder, size) in sorted(held.items(), key=lambda item: -item[1][1])]
    holders += [f"{size} bytes kept alive out of sight: the storage of the {name} passed to load_full"
                for name, size in hidden.items()]
    if total > limit:
        raise ctx.MemoryLimitExceeded(
            f"{where}the module holds {total} bytes of tensor storage after load_full; the limit is {limit} bytes, "
            f"its 1/{world} share of fc1 and fc2 plus fc2's bias of d_model={d_model}, in float32 "
            f"({'; '.join(holders)}). A tensor keeps its whole storage alive: a slice of a full weight (and "
            ".contiguous() of a slice that is already contiguous) is a view of all of it; copy the shard instead "
            "(.clone(), or copy_ into a parameter of the shard's size)")
    if alive:
        raise ctx.WrongAnswer(
            f"{where}after load_full returned and the caller dropped fc1 and fc2, the module still keeps the "
            f"storage of {', '.join(alive)} ({'; '.join(holders)}): it aliases the caller's tensors, so changing "
            "them would change this module; copy what it needs")


def held_storages(module):
    """{storage address: (where the module first holds it, its bytes)} over parameters, buffers and tensor
    attributes of every submodule, looking into lists, tuples and dicts."""
    found = {}

    def visit(name, value, depth):
        if isinstance(value, torch.Tensor):
            storage = value.untyped_storage()
            found.setdefault(storage.data_ptr(), (name, storage.nbytes()))
        elif isinstance(value, (list, tuple)) and depth < 4:
            for position, item in enumerate(value):
                visit(f"{name}[{position}]", item, depth + 1)
        elif isinstance(value, dict) and depth < 4:
            for key, item in value.items():
                visit(f"{name}[{key!r}]", item, depth + 1)

    for prefix, submodule in module.named_modules():
        dotted = f"{prefix}." if prefix else ""
        for name, tensor in (*submodule._parameters.items(), *submodule._buffers.items()):
            visit(dotted + name, tensor, 0)
        for name, value in vars(submodule).items():
            if name not in ("_parameters", "_buffers", "_modules"):
                visit(dotted + name, value, 0)
    return found


def check_output(out, given, where, ctx):
    if not isinstance(out, torch.Tensor):
        raise ctx.WrongAnswer(f"{where}forward returned {type(out).__name__}, not a torch.Tensor")
    if out.shape != given.shape:
        raise ctx.WrongAnswer(f"{where}forward mapped x of shape {tuple(given.shape)} to shape {tuple(out.shape)}; "
                              "the full output has the input's shape")


def sgd_step(parameters):
    """torch.optim.SGD's step without momentum, written out: building an optimiser imports torch._dynamo on
    first use, over a second of CPU time in every rank process, charged to the submission's first test."""
    with torch.no_grad():
        for parameter in parameters:
            if parameter.grad is not None:
                parameter.add_(parameter.grad, alpha=-LEARNING_RATE)


def all_reduce_count(ctx):
    return sum(count for name, count in ctx.collective_counts.items() if name.rsplit(".", 1)[0] in ALL_REDUCES)
