"""Runs on every rank inside the sandbox: builds this rank's TensorParallelMLP from the full layers, then runs
forward and backward on each input and one SGD step, and reports what it saw.

It decides nothing. The submission shares this process and can change anything in it, so what is observed
here (the storages the module holds after load_full, the collectives each pass issued) goes back as one
output, `observed`, for the trusted checker to validate and judge, beside the values and gradients. Set-up
(`__init__`, `load_full`) is no pass: its collectives are not recorded.

The observing code lives in a closure, bound when the harness loads this file, before the submission is
imported: the module keeps no name but `run`, leaves sys.modules, and what it calls is taken before a
submission could replace it. A submission that rewrites the harness or walks the garbage collector can still
reach it; the judge is for practice, not proctoring (docs/judge.md).
"""

import gc
import json
import sys
import weakref

import torch
import torch.distributed as dist
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode, is_traceable_wrapper_subclass


def _observer():
    learning_rate = 0.1
    # Room for the report's longest form: a dozen passes of 16 operators each, and eight holders' names.
    report_bytes = 1 << 15
    # Where collectives live, however they are issued: torch.distributed, the process-group object, the
    # functional collectives, their autograd variants, DTensor's own.
    collective_namespaces = ("c10d", "_c10d_functional", "_c10d_functional_autograd", "_dtensor")
    storage_of, storage_bytes, storage_address = (torch.Tensor.untyped_storage, torch.UntypedStorage.nbytes,
                                                  torch.UntypedStorage.data_ptr)
    clone, detach, requires_grad_ = torch.Tensor.clone, torch.Tensor.detach, torch.Tensor.requires_grad_
    named_modules, module_parameters = nn.Module.named_modules, nn.Module.parameters
    collect, reference, dumps, frombuffer = gc.collect, weakref.ref, json.dumps, torch.frombuffer
    new_group, world_size_of = dist.new_group, dist.get_world_size

    class Collectives(TorchDispatchMode):
        """The collectives this thread issues while active: {operator: [calls, elements of the first call's
        first operand]}, for at most 16 operators. Fewer than ten operators of these namespaces move no data
        or are all-reduces, so a pass that reaches the cap is seen issuing some other collective."""

        def __init__(self):
            super().__init__()
            self.seen = {}

        @classmethod
        def _should_skip_dynamo(cls):
            # torch would wrap __torch_dispatch__ in a dynamo guard, importing torch._dynamo on first use.
            return False

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = func._schema.name
            if name.split("::", 1)[0] in collective_namespaces:
                operator = f"{name}.{func._overloadname}"[:60]
                if operator in self.seen:
                    self.seen[operator][0] += 1
                elif len(self.seen) < 16:
                    operands = args if args else tuple((kwargs or {}).values())
                    self.seen[operator] = [1, elements(operands[0] if operands else None)]
            return func(*args, **(kwargs or {}))

    def elements(value):
        if isinstance(value, torch.Tensor):
            return value.numel()
        if isinstance(value, (list, tuple)):
            return sum(elements(item) for item in value)
        return 0

    def during(function, *args):
        """(function(*args), [[operator, calls, elements of the first call's operand]] of the collectives it
        issued on this thread)."""
        watch = Collectives()
        with watch:
            result = function(*args)
        return result, [[operator, *counts] for operator, counts in watch.seen.items()]

    def run(solution, params, inputs, ctx):
        group, index, where = tensor_parallel_group(params, ctx)
        d_model, d_hidden = params["d_model"], params["d_hidden"]
        if d_hidden % world_size_of(group):
            return {"observed": encoded({"refused": refusal(solution, d_model, d_hidden, group)})}
        module, passed = loaded(solution, inputs, d_model, d_hidden, group)
        observed = holdings(module, passed)
        # What torch.optim.SGD(module.parameters()) would hold if it were built here.
        parameters = list(module_parameters(module))
        observed["parameters"] = len(parameters)
        observed["passes"] = passes = {}
        with_grad = params.get("x_requires_grad", True)
        outputs = {}
        for call in range(len(params["leading"])):
            given = inputs[f"g{index}.x{call}"]
            x = requires_grad_(clone(given), with_grad)
            out, passes[f"forward{call}"] = during(module, x)
            check_output(out, given, where, ctx)
            if not out.requires_grad:
                raise ctx.WrongAnswer(f"{where}x of shape {tuple(x.shape)}: the output does not require grad; it "
                                      "must be differentiable with respect to x and to the module's parameters")
            loss = (out * inputs[f"g{index}.grad{call}"]).sum()
            _, passes[f"backward{call}"] = during(loss.backward)
            outputs[f"out{call}"] = plain(out)
            outputs[f"x.after{call}"] = plain(x)
            if with_grad:
                if x.grad is None:
                    raise ctx.WrongAnswer(f"{where}x of shape {tuple(x.shape)}: x.grad is None after backward; the "
                                          "output is not connected to x")
                outputs[f"x.grad{call}"] = plain(x.grad)
        sgd_step(parameters)
        given = inputs[f"g{index}.x_after_step"]
        with torch.no_grad():
            out, passes["forward_after_step"] = during(module, given)
        check_output(out, given, where, ctx)
        outputs["out_after_step"] = plain(out)
        outputs["observed"] = encoded(observed)
        return outputs

    def tensor_parallel_group(params, ctx):
        """(the group to pass, or None for the default one; the index of this rank's inputs; the words that
        begin a message, after the rank the harness names)."""
        if "groups" not in params:
            return None, 0, ""
        # new_group is collective over the whole world: every rank creates every group, in the same order.
        groups = [new_group(ranks) for ranks in params["groups"]]
        index = next(i for i, ranks in enumerate(params["groups"]) if ctx.rank in ranks)
        ranks = params["groups"][index]
        where = f"as rank {ranks.index(ctx.rank)} of the tensor-parallel group of ranks {', '.join(map(str, ranks))}: "
        return groups[index], index, where

    def refusal(solution, d_model, d_hidden, group):
        """"ValueError" when the constructor refuses the split, None when it returns a module."""
        try:
            solution.TensorParallelMLP(d_model, d_hidden, group=group)
        except ValueError:
            return "ValueError"
        return None

    def loaded(solution, inputs, d_model, d_hidden, group):
        """The module after load_full, and for each full tensor passed to it: (weak reference to its storage,
        its address). The full layers are dropped on return, as a caller would drop them."""
        fc1, fc2 = nn.Linear(d_model, d_hidden), nn.Linear(d_hidden, d_model)
        full = {"fc1.weight": fc1.weight, "fc1.bias": fc1.bias, "fc2.weight": fc2.weight, "fc2.bias": fc2.bias}
        with torch.no_grad():
            for name, tensor in full.items():
                tensor.copy_(inputs[name])
        module = solution.TensorParallelMLP(d_model, d_hidden, group=group)
        module.load_full(fc1, fc2)
        passed = {name: (reference(storage_of(tensor)), storage_address(storage_of(tensor)))
                  for name, tensor in full.items()}
        return module, passed

    def holdings(module, passed):
        """held: the bytes of every storage the module keeps, the full tensors passed to load_full among them,
        and the largest eight as [where the module first holds it, its bytes, the full tensor it is or None];
        alive: the full tensors whose storage outlived the caller's references."""
        held = held_storages(module)
        collect()
        alive = {address: name for name, (storage, address) in passed.items() if storage() is not None}
        largest = sorted(held.items(), key=lambda item: -item[1][1])[:8]
        return {"held": {"bytes": sum(size for _, size in held.values()),
                         "full": sorted(alive[address] for address in held if address in alive),
                         "largest": [[holder[:80], size, alive.get(address)] for address, (holder, size) in largest]},
                "alive": sorted(alive.values())}

    def held_storages(module):
        """{storage address: (where the module first holds it, its bytes)} over parameters, buffers and tensor
        attributes of every submodule, looking into lists, tuples, dicts and tensor subclasses (a DTensor's
        local shard)."""
        found = {}

        def visit(name, value, depth):
            if is_traceable_wrapper_subclass(value) and depth < 4:
                for inner in type(value).__tensor_flatten__(value)[0]:
                    visit(f"{name}.{inner}", getattr(value, inner), depth + 1)
            elif isinstance(value, torch.Tensor):
                storage = storage_of(value)
                found.setdefault(storage_address(storage), (name, storage_bytes(storage)))
            elif isinstance(value, (list, tuple)) and depth < 4:
                for position, item in enumerate(value):
                    visit(f"{name}[{position}]", item, depth + 1)
            elif isinstance(value, dict) and depth < 4:
                for key, item in value.items():
                    visit(f"{name}[{key!r}]", item, depth + 1)

        for prefix, submodule in named_modules(module):
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
            raise ctx.WrongAnswer(f"{where}forward mapped x of shape {tuple(given.shape)} to shape "
                                  f"{tuple(out.shape)}; the full output has the input's shape")

    def plain(tensor):
        # A copy: an output of the functional collectives (DTensor's) is a lazily waited subclass, and a
        # clone of it is the plain tensor the harness sends.
        return clone(detach(tensor))

    def sgd_step(parameters):
        """torch.optim.SGD's step without momentum, written out: building an optimiser imports torch._dynamo
        on first use, over a second of CPU time in every rank process, charged to the submission's first test."""
        with torch.no_grad():
            for parameter in parameters:
                if parameter.grad is not None:
                    parameter.add_(parameter.grad, alpha=-learning_rate)

    def encoded(observed):
        """The report as JSON, padded with spaces to a size every run shares, as the reference's outputs must."""
        text = dumps(observed).encode()[:report_bytes]
        return frombuffer(bytearray(text + b" " * (report_bytes - len(text))), dtype=torch.uint8)

    return run


run = _observer()
del _observer
sys.modules.pop(__name__, None)
