"""The kit's sandbox side for distributed problems, shipped to every sandbox as the module `kit_ranks`.

A distributed driver runs on every rank beside the submission and decides nothing. `kit_ranks.observer()`
gives it what every such driver needs: the rank's process group (several side by side when a test's params
has `groups`), the collectives each phase issues (and whether one timed out), the module set up from full
nn.Linear layers, what the module holds once set up (every storage it keeps alive; which of the tensors it
was given outlived the caller's references) or what an object made in a span keeps (an optimizer's state),
the steps a module is judged by (forward and backward on each input, one SGD step, forward again), and the
report of it all as one uint8 output of a fixed size, for the ranks kind (runner/kit/ranks_reports.py) to
read as hostile input and judge.

The report, JSON:
    phases      {phase: [[operator.overload, calls, elements, bytes]]}: the collectives the rank's process issued
                in the phase, on any thread (at most MAX_OPERATORS operators), with the elements and bytes of
                each call's first operand (the tensor or tensors it moves) summed over its calls; one another
                thread issued between phases counts in the phase that follows, or in the last (the driver's
                thread between phases sets up, as a DDP wrapper's constructor does, and is not counted; once
                set_up()'s phase has ended, set-up is over, and the driver's thread counts like any other until
                the report is encoded: what the module's objects do while the driver reads them, a lazy output
                computed as the driver multiplies it, or a finaliser run by the collector, is judged too)
    held        {"bytes": of every storage the module keeps, "given": the given tensors among them,
                 "largest": [[where the module first holds it, its bytes, the given tensor it is or null]]};
                or, from kept(), the bytes of every storage made since storages_from_now() and still alive
    alive       the given tensors whose storage outlived the caller's references
    parameters  the tensors module.parameters() yields after set-up
    refused     where the test expects a refusal, the name of the built-in exception class set-up raised, or null
    timed_out   whether a collective timed out, where the driver asks during() to record it

Collectives are counted in the dispatcher itself: every operator of their namespaces gets a kernel for the
BackendSelect key, which the dispatcher visits before the backend's on every call, on every thread and in
inference mode too; it counts the call and redispatches to the backend (which releases the GIL: a collective
called with it held can wait forever for gloo's thread, which may need it). A dispatch mode would be simpler,
but modes are thread-local, and an all-reduce issued on a helper thread would go unseen. A collective that
others are made of (an all-reduce inside a functional collective) is counted once, as the outermost call on
its thread. Only an exclusion of the BackendSelect key, through torch's private API, steps around the count.

Each observer is a closure bound when it is made (the module's constants too), and a driver makes its own
when it loads, before the submission is imported: replacing a name here, in torch or in json afterwards
changes nothing it calls. A submission that walks the garbage collector, or registers kernels of its own over
the counting ones, can still reach it; the judge is for practice, not proctoring (docs/judge.md).
"""

import builtins
import gc
import json
import os
import threading
import time
import types
import warnings
import weakref

import numpy
import torch
import torch.distributed as dist
from torch import nn
from torch.utils._python_dispatch import is_traceable_wrapper_subclass

# The name the harness loads the submission's file under (runner/harness/serve.py).
SUBMISSION = "solution"
# Where collectives live, however they are issued: torch.distributed, the process-group object, the
# functional collectives, their autograd variants, DTensor's own.
NAMESPACES = ("c10d", "_c10d_functional", "_c10d_functional_autograd", "_dtensor")
# Fewer than ten operators of those namespaces move no data, so a phase that reaches the cap is seen issuing
# operators it was not allowed.
MAX_OPERATORS = 16
LARGEST = 8
# Room for the longest report: a dozen phases of MAX_OPERATORS operators each, and LARGEST holders' names.
REPORT_BYTES = 1 << 15
# How gloo words a collective that waited past the timeout, or whose peer gave up waiting first.
TIMED_OUT = ("Timed out", "Connection closed")
# A collective's tensors outlive the call for a moment: gloo's worker thread lets go of its outputs just after
# the caller has returned (a few milliseconds later on a busy machine), so kept() looks this many times, this far
# apart, and takes the least: what an object keeps is there at every look.
SETTLE_LOOKS = 5
SETTLE_S = 0.01


def observer():
    """A namespace of the helpers below, bound now (call it when the driver loads)."""
    storage_of, storage_bytes, storage_address = (torch.Tensor.untyped_storage, torch.UntypedStorage.nbytes,
                                                  torch.UntypedStorage.data_ptr)
    clone, detach, requires_grad_ = torch.Tensor.clone, torch.Tensor.detach, torch.Tensor.requires_grad_
    numel, element_size = torch.Tensor.numel, torch.Tensor.element_size
    add_, copy_, no_grad, frombuffer, uint8 = (torch.Tensor.add_, torch.Tensor.copy_, torch.no_grad, torch.frombuffer,
                                               torch.uint8)
    named_modules, module_parameters, Linear = nn.Module.named_modules, nn.Module.parameters, nn.Linear
    collect, weak, dumps, new_group = gc.collect, weakref.ref, json.dumps, dist.new_group
    flatten, Tensor = is_traceable_wrapper_subclass, torch.Tensor
    namespaces, max_operators, largest_kept, report_bytes = NAMESPACES, MAX_OPERATORS, LARGEST, REPORT_BYTES
    timed_out_words = TIMED_OUT
    settle_looks, settle_s, sleep = SETTLE_LOOKS, SETTLE_S, time.sleep
    freeze, unfreeze, objects = gc.freeze, gc.unfreeze, gc.get_objects
    open_file, read_file, close_file, read_only = os.open, os.read, os.close, os.O_RDONLY
    ndarray, submission = numpy.ndarray, SUBMISSION
    class_of, is_subclass = type, issubclass
    exceptions = {name: value for name, value in vars(builtins).items()
                  if isinstance(value, type) and issubclass(value, BaseException)}

    lock, depth, driver_thread, thread_id = threading.Lock(), threading.local(), threading.get_ident(), threading.get_ident
    # The phase now running's record, what was issued since the last phase ended, whether set_up() has ended (the
    # driver's own thread then counts between phases too) and the libraries that hold the counting kernels (a
    # registration lasts as long as its library).
    record = {"phase": None, "between": {}, "set_up": False, "libraries": {}, "resident_from": 0, "storages_then": set()}

    def count(operator, args, kwargs):
        # Sized outside the lock: the size of an operand still being gathered (a functional collective's output)
        # waits for it, through a collective of its own.
        operands = args if args else tuple(kwargs.values())
        moved = size(operands[0] if operands else None)
        with lock:
            if record["phase"] is None and thread_id() == driver_thread and not record["set_up"]:
                return  # the driver's own set-up between phases (a DDP wrapper's first broadcast), not judged
            seen = record["phase"] if record["phase"] is not None else record["between"]
            if operator in seen or len(seen) < max_operators:
                calls, elements, nbytes = seen.get(operator, (0, 0, 0))
                seen[operator] = (calls + 1, elements + moved[0], nbytes + moved[1])

    backend_select = torch._C.DispatchKey.BackendSelect

    def counting(operator, overload):
        def kernel(keyset, *args, **kwargs):
            outer = getattr(depth, "calls", 0)
            if not outer:
                count(operator, args, kwargs)
            depth.calls = outer + 1
            try:
                # On to the backend's kernel, without the GIL (the collective's own thread may need it meanwhile).
                return overload.redispatch(keyset.remove(backend_select), *args, **kwargs)
            finally:
                depth.calls = outer
        return kernel

    libraries = record["libraries"]
    with warnings.catch_warnings():
        # torch warns when a kernel is registered where there was none before for an operator with a schema.
        warnings.simplefilter("ignore")
        for qualified in sorted(torch._C._dispatch_get_all_op_names()):
            namespace, _, target = qualified.partition("::")
            if namespace not in namespaces:
                continue
            name, _, overload_name = target.partition(".")
            overload = getattr(getattr(getattr(torch.ops, namespace), name), overload_name or "default")
            library = libraries.setdefault(namespace, torch.library.Library(namespace, "IMPL"))
            library.impl(target, counting(f"{namespace}::{name}.{overload_name or 'default'}"[:60], overload),
                         "BackendSelect", with_keyset=True)

    def size(value):
        if isinstance(value, Tensor):
            return numel(value), numel(value) * element_size(value)
        if isinstance(value, (list, tuple)):
            sizes = [size(item) for item in value]
            return sum(s[0] for s in sizes), sum(s[1] for s in sizes)
        return 0, 0

    def report():
        """An empty report, filled by the helpers below."""
        with lock:
            record["set_up"] = False
        return {"phases": {}}

    def during(observed, phase, function, *args, timeouts=False):
        """function(*args), recording in observed the collectives issued meanwhile, on any thread, as `phase`. With
        timeouts, a collective that timed out (gloo's words for a send or receive nobody matched in time) is
        recorded as `timed_out` instead of raised, and function's result is None."""
        with lock:
            seen, record["between"] = record["between"], {}
            record["phase"] = seen
        result = None
        try:
            result = function(*args)
        except RuntimeError as error:
            if not timeouts or not any(words in str(error) for words in timed_out_words):
                raise
            observed["timed_out"] = True
        finally:
            with lock:
                record["phase"] = None
        observed["phases"][phase] = [[operator, *counts] for operator, counts in seen.items()]
        if timeouts:
            observed.setdefault("timed_out", False)
        return result

    def group(params, ctx):
        """(the group to pass, None for the default one; the index of this rank's group in params["groups"],
        0 without groups; the group's size)."""
        if "groups" not in params:
            return None, 0, ctx.world_size
        # new_group is collective over the whole world: every rank creates every group, in the same order.
        made = [new_group(ranks) for ranks in params["groups"]]
        index = next(i for i, ranks in enumerate(params["groups"]) if ctx.rank in ranks)
        return made[index], index, len(params["groups"][index])

    def refusal(observed, build, name):
        """build() where the test expects it to raise the built-in exception class called name: records name when
        what it raised is of that class or below, judged by the class the exception has (a caller's `except`
        matches no other), never by a class name, nor by what builtins holds under name by then; re-raises
        anything else."""
        try:
            build()
        except BaseException as error:
            if not is_subclass(class_of(error), exceptions[name]):
                raise
            observed["refused"] = name
            return
        observed["refused"] = None

    def resident():
        """This process's anonymous resident bytes (RssAnon), as the kernel counts them: tensors, NumPy arrays,
        globals and frozen objects alike, on every thread."""
        descriptor = open_file("/proc/self/status", read_only)
        try:
            status = read_file(descriptor, 1 << 16)
        finally:
            close_file(descriptor)
        for line in status.split(b"\n"):
            if line.startswith(b"RssAnon:"):
                return int(line.split()[1]) * 1024
        return 0

    def set_up(observed, build, inputs, layers, load):
        """The module build() makes, after module.<load>(*the full layers), recorded as the phase setup, with
        what the module holds once the caller has dropped the layers. Each layer is an nn.Linear(*layers[name])
        with its weight and bias copied from inputs["<name>.weight"] and inputs["<name>.bias"]."""
        before = resident()
        module, passed = during(observed, "setup", loaded, build, inputs, layers, load)
        with lock:
            record["set_up"] = True  # from here on the driver's thread counts between phases too
        holdings(observed, module, passed)
        observed["held"]["resident"] = max(0, resident() - before)
        return module

    def loaded(build, inputs, layers, load):
        full = {name: Linear(*features) for name, features in layers.items()}
        tensors = {f"{name}.{part}": layer._parameters[part] for name, layer in full.items()
                   for part in ("weight", "bias")}
        with no_grad():
            for name, tensor in tensors.items():
                copy_(tensor, inputs[name])
        module = build()
        getattr(module, load)(*full.values())
        # The layers go when this returns, as a caller would drop them; only weak references are kept.
        return module, given(tensors)

    def given(tensors):
        """What holdings() needs to know of tensors passed to set-up: a weak reference to each one's storage."""
        return {name: (weak(storage_of(tensor)), storage_address(storage_of(tensor)))
                for name, tensor in tensors.items()}

    def holdings(observed, module, passed):
        """Records what module holds; call it once the caller has dropped the tensors given() saw."""
        held = held_storages(module)
        collect()
        alive = {address: name for name, (storage, address) in passed.items() if storage() is not None}
        largest = sorted(held.items(), key=lambda item: -item[1][1])[:largest_kept]
        observed["held"] = {"bytes": sum(size for _, size in held.values()),
                            "given": sorted(alive[address] for address in held if address in alive),
                            "largest": [[holder[:80], size, alive.get(address)]
                                        for address, (holder, size) in largest]}
        observed["alive"] = sorted(alive.values())

    def held_storages(module):
        """{storage address: (where the module first holds it, its bytes)} over parameters, buffers and tensor
        attributes of every submodule, looking into lists, tuples, dicts and tensor subclasses (a DTensor's
        local shard); then over the class attributes of the submission's own classes among them and the globals
        of the submission's file, NumPy arrays counted too (keyed by their data's address)."""
        found = {}

        def visit(name, value, depth):
            if flatten(value) and depth < 4:
                for inner in type(value).__tensor_flatten__(value)[0]:
                    visit(f"{name}.{inner}", getattr(value, inner), depth + 1)
            elif isinstance(value, Tensor):
                storage = storage_of(value)
                found.setdefault(storage_address(storage), (name, storage_bytes(storage)))
            elif isinstance(value, ndarray):
                found.setdefault(("ndarray", value.__array_interface__["data"][0]), (name, value.nbytes))
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
        for label, namespace in submission_namespaces(module):
            for name, value in list(namespace.items()):
                if not name.startswith("__"):
                    visit(label + name, value, 0)
        return found

    def submission_namespaces(module):
        """(label, namespace) of each class of the submission's among module's submodules (its class attributes),
        and of the file that defines them (its globals, reached through their methods)."""
        namespaces, seen = [], set()
        for _, submodule in named_modules(module):
            owner = class_of(submodule)
            if owner.__module__ != submission or id(owner) in seen:
                continue
            seen.add(id(owner))
            namespaces.append((f"{owner.__name__}.", vars(owner)))
            for value in vars(owner).values():
                file_globals = getattr(value, "__globals__", None)
                if isinstance(file_globals, dict) and id(file_globals) not in seen:
                    seen.add(id(file_globals))
                    namespaces.append(("global ", file_globals))
        return namespaces

    def storages_from_now():
        """Call before making what kept() is to measure: from here on, the collector's objects are those made
        since, and the process's resident growth is counted."""
        record["storages_then"] = {storage_address(storage_of(tensor)) for tensor in objects()
                                   if is_subclass(class_of(tensor), Tensor)}
        freeze()
        record["resident_from"] = resident()

    def kept(observed, excluding):
        """Records as held the bytes of every tensor storage made since storages_from_now() and still alive, less
        those of the tensors excluding (the caller's own: parameters, gradients, outputs); and the process's
        resident growth since, less the storages of the caller's own made since."""
        mine = {storage_address(storage_of(tensor)): storage_bytes(storage_of(tensor)) for tensor in excluding}

        def alive_bytes():
            collect()
            made = {storage_address(storage_of(tensor)): storage_bytes(storage_of(tensor)) for tensor in objects()
                    if is_subclass(class_of(tensor), Tensor)}
            return sum(size for address, size in made.items() if address not in mine)

        # The least of the looks' totals, not the storages alive at all of them: state copied afresh between
        # two looks counts as much at each.
        looks = [alive_bytes()]
        for _ in range(settle_looks - 1):
            sleep(settle_s)
            looks.append(alive_bytes())
        grown = resident() - record["resident_from"] - sum(
            size for address, size in mine.items() if address not in record["storages_then"])
        unfreeze()
        observed["held"] = {"bytes": min(looks), "given": [], "largest": [], "resident": max(0, grown)}
        observed["alive"] = []

    def parameters(observed, module):
        """module.parameters() as an optimiser built now would hold them, counted in observed."""
        found = list(module_parameters(module))
        observed["parameters"] = len(found)
        return found

    def sgd_step(found, learning_rate):
        """torch.optim.SGD's step without momentum, written out: building an optimiser imports torch._dynamo
        on first use, over a second of CPU time in every rank process, charged to the submission's first test."""
        with no_grad():
            for parameter in found:
                if parameter.grad is not None:
                    add_(parameter, parameter.grad, alpha=-learning_rate)

    def steps(observed, module, inputs, prefix, calls, with_grad, learning_rate, ctx):
        """The judged steps of a module set up on this rank: for each call i, forward on a copy of
        inputs[prefix + "x<i>"] (requiring grad when with_grad) and backward of the output weighted by
        inputs[prefix + "grad<i>"], recorded as the phases forward<i> and backward<i>; then one SGD step of the
        parameters taken before the first call, and forward under no_grad on inputs[prefix + "x_after_step"]
        (forward_after_step). Outputs out<i>, x.after<i>, x.grad<i> (with_grad) and out_after_step."""
        found, outputs = parameters(observed, module), {}
        for call in range(calls):
            given = inputs[f"{prefix}x{call}"]
            x = requires_grad_(clone(given), with_grad)
            out = checked(during(observed, f"forward{call}", module, x), given, ctx, True)
            during(observed, f"backward{call}", (out * inputs[f"{prefix}grad{call}"]).sum().backward)
            outputs[f"out{call}"], outputs[f"x.after{call}"] = plain(out), plain(x)
            if with_grad and x.grad is None:
                raise ctx.WrongAnswer(f"x of shape {tuple(x.shape)}: x.grad is None after backward; the output is "
                                      "not connected to x")
            if with_grad:
                outputs[f"x.grad{call}"] = plain(x.grad)
        sgd_step(found, learning_rate)
        given = inputs[f"{prefix}x_after_step"]
        with no_grad():
            out = checked(during(observed, "forward_after_step", module, given), given, ctx, False)
        return {**outputs, "out_after_step": plain(out)}

    def checked(out, given, ctx, connected):
        """out, when forward returned a tensor of the input's shape (connected to autograd if asked)."""
        if not isinstance(out, Tensor):
            raise ctx.WrongAnswer(f"forward returned {type(out).__name__}, not a torch.Tensor")
        if out.shape != given.shape:
            raise ctx.WrongAnswer(f"forward mapped x of shape {tuple(given.shape)} to shape {tuple(out.shape)}; "
                                  "the full output has the input's shape")
        if connected and not out.requires_grad:
            raise ctx.WrongAnswer(f"x of shape {tuple(given.shape)}: the output does not require grad; it must be "
                                  "differentiable with respect to x and to the module's parameters")
        return out

    def plain(tensor):
        # A copy: an output of the functional collectives (DTensor's) is a lazily waited subclass, and a
        # clone of it is the plain tensor the harness sends.
        return clone(detach(tensor))

    def encoded(observed):
        """The report as JSON, padded with spaces to a size every run shares, as the reference's outputs must;
        what was issued after the last phase counts in it."""
        with lock:
            between, record["between"], record["set_up"] = record["between"], {}, False
        if between and observed["phases"]:
            last = list(observed["phases"])[-1]
            merged = {operator: counts for operator, *counts in observed["phases"][last]}
            for operator, counts in between.items():
                merged[operator] = [a + b for a, b in zip(merged.get(operator, (0, 0, 0)), counts)]
            observed["phases"][last] = [[operator, *counts] for operator, counts in merged.items()]
        text = dumps(observed).encode()[:report_bytes]
        return frombuffer(bytearray(text + b" " * (report_bytes - len(text))), dtype=uint8)

    return types.SimpleNamespace(report=report, during=during, group=group, refusal=refusal, set_up=set_up,
                                 given=given, holdings=holdings, storages_from_now=storages_from_now, kept=kept,
                                 parameters=parameters, sgd_step=sgd_step, steps=steps, plain=plain, encoded=encoded)
