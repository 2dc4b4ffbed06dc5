"""The problem kit's sandbox side: the standard drivers and the helpers a problem's own driver uses.

This file is shipped into every sandbox as the module `kit`, next to the driver, and the trusted side imports
it too, to compute a problem's float64 truth with the reference. Inside the sandbox the submission shares the
process and can change anything here, so nothing here decides a verdict: it calls the submission as the
interface pins it and reports what it saw as tensors, which the trusted checker validates as hostile data.
What it uses is bound when it is loaded, before the submission is imported, so that casual patching of
torch or nn.Module (named_parameters, a Parameter's properties) changes nothing it sees.

Outputs of a standard driver, besides the interface's own outputs (by their names) and gradients
(`<input>.grad`, `<parameter>.grad`):
    <output>.aliases        int64 (): 1 when the output shares storage with an input
    <output>.device         uint8 (16,): the output's device type, NUL-padded ASCII (an output on another device
                            than the judged one comes as an empty tensor of its shape and dtype)
    <output>.again          tests with `fresh`: the same call's output after the caller changed the first one
                            (its `.aliases`: whether it shares memory with an input or any first output)
    raised, raised.matches  tests with `raises`: the class of what the call raised, uint8 (64,) module.qualname
                            (all NUL when it returned), and int64 (): 1 when it is that built-in class or below
    <output>.requires_grad  int64 (): with cotangents, 1 when the output of the call on leaves requires grad
    module.report           module kind, int64 (n + 1, 2): per module tensor (the `module.` inputs, sorted),
                            (0 missing | 1 found with the input's shape | 2 another shape, 1 when learnable);
                            last row (1 when the class built an nn.Module, learnable parameters besides them)
    module.others           module kind, uint8: those other parameters' names, UTF-8, joined by commas
    build <i>               module kind, tests with `builds`: the class built at another size (run_module)
    <name> after <m>() #<i> module kind, tests with `methods`: after the i-th method called, each tensor of the
                            interface's `state`, each output called again, and `learnable`: int64 (), 1 when
                            the learnable tensors are still exactly the interface's (_methods)
    <output>.reach          with [interface.reach] and cotangents: which input positions each output position
                            depends on (_reach)
With `records_graph = false` in the interface, an operation that saves a tensor for backward calls the
operator autograd::graph_recorded (run_standard), which the problem forbids.
A test with `calls` makes one call per entry and names call i's inputs and outputs `<i>/<name>` (each_call).
An output the call could not produce is left out, and the checker says why. A test whose params list input
names under `transposed` passes each as x.transpose(0, -1); its gradient is reported in the stored layout.
"""

import builtins
import ctypes
import itertools
import sys
import traceback
import types

import torch

MODULE_PREFIX = "module."
# Text reports (NUL-padded ASCII): a device type, and an exception's class as module.qualname.
DEVICE_BYTES, CLASS_BYTES = 16, 64
# The built-in exception classes, taken before the submission is imported: one that rebinds builtins.ValueError
# changes nothing a test that expects a ValueError checks against.
_EXCEPTIONS = {name: value for name, value in vars(builtins).items()
               if isinstance(value, type) and issubclass(value, BaseException)}


def _bound():
    attribute, items, identity = object.__getattribute__, dict.items, id
    size, requires_grad = torch._C.TensorBase.size, torch._C.TensorBase.requires_grad.__get__

    def read(model):
        """{name: (shape, learnable)} of the parameters and buffers of model and its submodules, each tensor
        once under its first name, as named_parameters() and named_buffers() name them."""
        found, seen, stack = {}, set(), [("", model)]
        while stack:
            prefix, module = stack.pop()
            if identity(module) in seen:
                continue
            seen.add(identity(module))
            state = attribute(module, "__dict__")
            for kind in ("_parameters", "_buffers"):
                for name, tensor in items(state.get(kind, {})):
                    if tensor is not None and identity(tensor) not in seen:
                        seen.add(identity(tensor))
                        found[prefix + name] = (tuple(size(tensor)), kind == "_parameters" and requires_grad(tensor))
            stack += [(f"{prefix}{name}.", child) for name, child in reversed(items(state.get("_modules", {})))
                      if child is not None]
        return found

    storage_of, start_of, bytes_of, numel = (torch._C.TensorBase.untyped_storage, torch.UntypedStorage.data_ptr,
                                             torch.UntypedStorage.nbytes, torch._C.TensorBase.numel)

    def memory(tensor):
        """(first, last + 1) address of the storage the tensor views, or None where it has none (it is empty,
        or a meta tensor, whose storages all start at 0)."""
        if not numel(tensor):
            return None
        storage = storage_of(tensor)
        start = start_of(storage)
        return (start, start + bytes_of(storage)) if start else None

    return read, memory


_read, _memory = _bound()
def _trimmer():
    """malloc_trim(0): hand the heap's freed pages back, so that the call after this one is not measured on
    top of what the one before freed (the judge holds the process's resident growth over a request against
    the tracker's peak, which counts the larger of the two calls, not their sum)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return lambda: None
    return lambda: trim(0)


_trim = _trimmer()
_is_tensor, _is_module, _int64, _tensor, _grad, _grad_enabled = (
    lambda value: isinstance(value, torch.Tensor), lambda value: isinstance(value, torch.nn.Module), torch.int64,
    torch.tensor, torch.autograd.grad, torch.set_grad_enabled)
_Exception, _class_of, _is_subclass, _device, _empty = Exception, type, issubclass, torch.device, torch.empty


# The sandbox loads this file as `kit`; the trusted side imports it as runner.kit.sandbox, to run a truth.
_IN_SANDBOX, _print_exception = __name__ == "kit", traceback.print_exc


def show_exception():
    """Print the traceback of the exception being handled where the user sees it, the sandbox's stderr: a driver
    calls it for an exception of the submission that it catches and reports. On the trusted side (the truth, a
    mistake run through the driver) it prints nothing: the reference's refusals are no error of the judge's."""
    if _IN_SANDBOX:
        _print_exception()


def parameter_reader():
    """read(module) -> {name: (shape, learnable)} of its parameters and buffers, read from the modules' own
    dictionaries, never through methods the submission can replace."""
    return _read


def calls_observed():
    """(called, taken) for a callable the judge hands the submission (beam-search's `step`): the callable calls
    called(size) once per call, and taken() lists the sizes of every call recorded so far, in order.

    In the sandbox the record lives only in the closure of a sys.audit hook made here: called and taken hold
    nothing but sys.audit (bound now) and two event names, so nothing the callable, the driver or this module
    refers to reaches it, and audit hooks cannot be removed. A submission that raises the same events adds calls,
    which can only fail it, or reads a copy; only a walk of the garbage collector finds the record. On the
    trusted side, which runs only the reference and must not gather hooks for every driver it loads, it is a
    list."""
    if not _IN_SANDBOX:
        sizes = []
        return sizes.append, sizes.copy
    audit, name = sys.audit, f"kit.calls.{next(_observers)}"
    call_event, read_event = f"{name}.called", f"{name}.read"
    # Bound now: a submission that rebinds builtins.len or builtins.int must not make a call go unrecorded.
    sizes, append, extend, class_of, integer, listed, count = [], list.append, list.extend, type, int, list, len

    def hook(event, arguments):
        if event == call_event and count(arguments) == 1 and class_of(arguments[0]) is integer:
            append(sizes, arguments[0])
        elif event == read_event and count(arguments) == 1 and class_of(arguments[0]) is listed:
            extend(arguments[0], sizes)

    sys.addaudithook(hook)

    def called(size):
        audit(call_event, integer(size))

    def taken():
        copy = []
        audit(read_event, copy)
        return copy
    return called, taken


_observers = itertools.count()


def leaf(tensor):
    """A fresh copy of tensor (strides kept) that requires grad."""
    return tensor.detach().clone().requires_grad_(True)


def aliases(out, *tensors):
    """Whether out is one of tensors or its storage overlaps one of theirs: a view, the same storage, or
    another storage made over the same memory (torch.frombuffer on one buffer)."""
    if not _is_tensor(out) or out.numel() == 0:
        return False
    span = _memory(out)
    return any(out is tensor or (_is_tensor(tensor) and _overlap(span, _memory(tensor))) for tensor in tensors)


def _overlap(span, other):
    return span is not None and other is not None and span[0] < other[1] and other[0] < span[1]


def _flag(value, device):
    return _tensor(int(bool(value)), dtype=_int64, device=device)


def _text(value, size, device):
    return _tensor(list(value.encode("ascii", "replace")[:size].ljust(size, b"\0")), dtype=torch.uint8, device=device)


def _named(result, names):
    """The call's result by output name; None where it is not a tensor (one name: the result itself; several:
    a tuple or list of that length)."""
    if len(names) == 1:
        return {names[0]: result if _is_tensor(result) else None}
    values = list(result) if isinstance(result, (tuple, list)) and len(result) == len(names) else [None] * len(names)
    return {name: value if _is_tensor(value) else None for name, value in zip(names, values)}


def _keywords(params, names):
    return {name: params[name] for name in names if name in params}


def _differentiable(tensor):
    return _is_tensor(tensor) and (tensor.is_floating_point() or tensor.is_complex())


def run_function(solution, params, inputs, ctx, interface):
    """The function kind: call the entry point, then, when the test holds cotangents, again on leaves; a test
    with `calls` calls it once per entry (see each_call), and one with `raises` reports what it raised.

    An argument is an input tensor or a test param of its name. One that is absent is left out (positional
    ones from the first absent on), or passed as None when the params say `explicit_none`; `by_name` passes
    the positional ones by name, `as_device` lists params passed as torch.device(value) rather than a string,
    and `default_device` makes the call inside `with torch.device(default_device)`."""
    def call(arguments, params):
        given = params.get("explicit_none")
        values = {**params, **arguments}
        values.update({name: _device(values[name]) for name in params.get("as_device", [])
                       if values.get(name) is not None})
        positional = []
        for name in interface.get("args", []):
            if name not in values and not given:
                break
            positional.append(values.get(name))
        keywords = {name: values.get(name) for name in interface.get("kwargs", []) if name in values or given}
        if params.get("by_name"):
            keywords.update(zip(interface.get("args", []), positional))
            positional = []
        function = getattr(solution, interface["call"])
        if "default_device" not in params:
            return function(*positional, **keywords)
        with _device(params["default_device"]):
            return function(*positional, **keywords)

    def one(params, inputs):
        if "raises" in params:
            return _raised(lambda: call(inputs, params), params["raises"], ctx.device)
        return _run(call, {}, params, inputs, ctx, interface)
    return each_call(one, params, inputs, interface)


def _raised(thunk, expected, device):
    """`raised`, the class of what thunk raised (all NUL when it returned), and `raised.matches`, 1 when that is
    the built-in exception class named expected or a subclass of it: the class the exception has, which a
    caller's `except` matches, never the `__class__` it claims, which isinstance would take."""
    try:
        thunk()
    except _Exception as error:  # noqa: BLE001 - which class it is, is the observation
        kind = _class_of(error)
        return {"raised": _text(f"{kind.__module__}.{kind.__qualname__}", CLASS_BYTES, device),
                "raised.matches": _flag(_is_subclass(kind, _EXCEPTIONS[expected]), device)}
    return {"raised": _text("", CLASS_BYTES, device), "raised.matches": _flag(False, device)}


def each_call(one, params, inputs, interface):
    """one(params, inputs) for the test, or for each entry of its `calls`: that call's params are the test's
    with the entry's over them, its inputs the shared `module.` ones and those named `<i>/<name>` (i from 0),
    and its outputs come back under `<i>/<name>`. A call that raises after others says which ran before."""
    if "calls" not in params:
        return one(params, inputs)
    shared = {name: tensor for name, tensor in inputs.items() if name.startswith(MODULE_PREFIX)}
    base = {name: value for name, value in params.items() if name != "calls"}
    outputs, before = {}, []
    for index, entry in enumerate(params["calls"]):
        prefix = f"{index}/"
        own = {name[len(prefix):]: tensor for name, tensor in inputs.items() if name.startswith(prefix)}
        try:
            produced = one({**base, **entry}, {**shared, **own})
        except Exception as error:
            if before:
                error.add_note(f"Call {index + 1} of this test raised; before it, {interface['call']} ran on "
                               f"{'; '.join(before)}.")
            raise
        outputs.update({prefix + name: tensor for name, tensor in produced.items()})
        before.append(", ".join(f"{name} of shape {tuple(own[name].shape)}" for name in interface.get("args", [])
                                if name in own) or repr(entry))
    return outputs


MAX_NAMES_BYTES = 1000
# A build's report row: present, learnable, number of dimensions, then up to this many sizes.
BUILD_SIZES = 4


def _build_row(found, name):
    if name not in found:
        return [0] * (3 + BUILD_SIZES)
    shape, learnable = found[name]
    return [1, int(learnable), len(shape), *[*shape, *[0] * BUILD_SIZES][:BUILD_SIZES]]


def _build_report(model, names, device):
    """What a further build of the class holds, in the main build's names (see run_module)."""
    if not _is_module(model):
        return _tensor([[0] * (3 + BUILD_SIZES)] * (len(names) + 1), dtype=_int64, device=device)
    found = _read(model)
    others = sum(1 for name, (_, learnable) in found.items() if learnable and name not in names)
    return _tensor([*[_build_row(found, name) for name in names], [1, others, *[0] * (1 + BUILD_SIZES)]],
                   dtype=_int64, device=device)


def run_module(solution, params, inputs, ctx, interface):
    """The module kind: build the class, copy the `module.` inputs in by name, report its tensors, call it.

    A test whose params has `builds` (a list of constructor argument lists) also builds the class at each of
    those sizes and reports, as `build <i>`, each tensor of the main build's names (present, learnable,
    dimensions, sizes) and how many other learnable parameters it has, for the checker to compare with the
    reference's builds."""
    cls = getattr(solution, interface["call"])
    names = sorted(name for name in inputs if name.startswith(MODULE_PREFIX))
    expected = {name.removeprefix(MODULE_PREFIX): tuple(inputs[name].shape) for name in names}
    report = {f"build {index}": _build_report(cls(*build), list(expected), ctx.device)
              for index, build in enumerate(params.get("builds", []))}
    model = cls(*[params[name] for name in interface.get("init", [])],
                **_keywords(params, interface.get("init_kwargs", [])))
    if not _is_module(model):
        report["module.report"] = _tensor([[0, 0]] * len(names) + [[0, 0]], dtype=_int64, device=ctx.device)
        return report
    found = _read(model)
    rows = [[0 if name not in found else 1 if found[name][0] == shape else 2, int(found.get(name, ((), 0))[1])]
            for name, shape in expected.items()]
    report.update(_module_report(rows, found, expected, ctx.device))
    if any(row[0] != 1 for row in rows):
        return report
    if names:
        model.to(device=ctx.device, dtype=inputs[names[0]].dtype)
    tensors = dict(model.named_parameters())
    tensors.update(dict(model.named_buffers()))
    with torch.no_grad():
        for name in expected:
            tensors[name].copy_(inputs[MODULE_PREFIX + name])
    learnable = {name: tensors[name] for name in expected if found[name][1]}

    def call(arguments, params):
        return model(*[arguments[name] for name in interface.get("args", [])],
                     **_keywords(params, interface.get("kwargs", [])))
    outputs = each_call(lambda params, inputs: _run(call, learnable, params, inputs, ctx, interface), params,
                        inputs, interface)
    # Read again once forward has run: a parameter made on the first call (a lazy module) counts too.
    report.update(_module_report(rows, _read(model), expected, ctx.device))
    if "calls" not in params and all(name in outputs for name in interface.get("outputs", ["y"])):
        outputs.update(_methods(model, call, params, inputs, expected, interface, ctx))
    return {**outputs, **report}


def _methods(model, call, params, inputs, expected, interface, ctx):
    """A test whose params has `methods` calls each of those methods of the module in order, once its calls are
    done, and reports after each (`<name> after <method>() #<i>`): whether its learnable tensors are still
    exactly the interface's (`learnable`), the tensors the interface's `state` names, and its outputs called
    again on the test's inputs."""
    frozen, reported = set(interface.get("frozen", [])), {}
    for index, method in enumerate(params.get("methods", []), 1):
        getattr(model, method)()
        after, found = f" after {method}() #{index}", _read(model)
        kept = {name for name, (_, learnable) in found.items() if learnable} == set(expected) - frozen \
            and all(name in found and not found[name][1] for name in frozen)
        reported["learnable" + after] = _flag(kept, ctx.device)
        tensors = dict(model.named_parameters())
        tensors.update(dict(model.named_buffers()))
        for name in interface.get("state", []):
            if name in tensors:
                reported[name + after] = tensors[name].detach().clone()
        with _grad_enabled(False):
            again = _named(call(_transposed(inputs, params), params), interface.get("outputs", ["y"]))
        reported.update({name + after: value.detach().clone() for name, value in again.items() if value is not None})
    return reported


def _module_report(rows, found, expected, device):
    """module.report, and module.others: the names of learnable parameters the interface does not have, as
    UTF-8 bytes joined by commas (the checker shows them on sample tests only)."""
    others = [name for name, (_, learnable) in found.items() if learnable and name not in expected]
    names = ",".join(others).encode()[:MAX_NAMES_BYTES]
    return {"module.report": _tensor([*rows, [1, len(others)]], dtype=_int64, device=device),
            "module.others": _tensor(list(names), dtype=torch.uint8, device=device)}


def _transposed(arguments, params):
    """The arguments as the call gets them: those the test's `transposed` names as x.transpose(0, -1), a view
    whose last dimension is not contiguous (the judge draws them with the two dimensions swapped)."""
    return {name: tensor.transpose(0, -1) if name in params.get("transposed", ()) else tensor
            for name, tensor in arguments.items()}


def _reported(name, value, others, ctx):
    """An output, its device type and whether it aliases one of others. An output on another device than the
    judged one comes as an empty tensor of its shape and dtype (a meta tensor has no values to send)."""
    if value is None:
        return {}
    on = value.device.type
    copy = (value.detach().clone() if on == ctx.device.type
            else _empty(value.shape, dtype=value.dtype, device=ctx.device))
    return {name: copy, f"{name}.device": _text(on, DEVICE_BYTES, ctx.device),
            f"{name}.aliases": _flag(aliases(value, *others), ctx.device)}


def _changed_in_place(values):
    """What a caller adding a padding mask does to a result: every entry changed where it lies."""
    with _grad_enabled(False):
        for value in values:
            if value is not None and value.dtype == torch.bool:
                value.logical_not_()
            elif value is not None:
                value.add_(1)


def _run(call, parameters, params, inputs, ctx, interface):
    names = interface.get("outputs", ["y"])
    given = [*(inputs[name] for name in interface.get("args", []) if name in inputs), *parameters.values()]
    cotangents = {name: inputs["d" + name] for name in names if "d" + name in inputs}
    # With cotangents the second call, on leaves, is the one differentiated: the first builds no graph to hold.
    with _grad_enabled(not cotangents):
        first = _named(call(_transposed(inputs, params), params), names)
    outputs = {}
    for name, value in first.items():
        outputs.update(_reported(name, value, given, ctx))
    if params.get("fresh"):
        # A later call must not return what the caller was given and has since changed, nor memory of it that it
        # puts the values back into: the caller's edit would be undone under it.
        _changed_in_place(first.values())
        earlier = [*given, *first.values()]
        for name, value in _named(call(_transposed(inputs, params), params), names).items():
            outputs.update(_reported(f"{name}.again", value, earlier, ctx))
    if not cotangents:
        return outputs
    del first
    if getattr(getattr(ctx, "watch", None), "track_memory", False):
        _trim()  # only where memory is measured: a trim costs milliseconds, which timed calls would count
    leaves = {name: leaf(inputs[name]) for name in interface.get("grad", []) if _differentiable(inputs[name])}
    second = _named(call(_transposed({**inputs, **leaves}, params), params), names)
    connected = [name for name in cotangents if second[name] is not None and second[name].requires_grad
                 and second[name].shape == cotangents[name].shape]
    for name in cotangents:
        outputs[f"{name}.requires_grad"] = _flag(name in connected, ctx.device)
    if not connected:
        return outputs
    wrt = {**leaves, **parameters}
    grads = _grad([second[name] for name in connected], list(wrt.values()),
                  [cotangents[name] for name in connected], allow_unused=True)
    outputs.update({f"{name}.grad": grad for name, grad in zip(wrt, grads) if grad is not None})
    reach = interface.get("reach")
    if reach and reach.get("output", names[0]) in connected:
        outputs.update(_reach(call, params, {**inputs, **leaves}, names, reach))
    return outputs


def _reach(call, params, inputs, names, reach):
    """`<output>.reach` (n_out, n_in) where the output and the input have n_out and n_in positions along
    reach's dim, up to `up_to`: entry (t, s) is the largest |d(output_t · d<output>_t) / d input_s|, which
    positions of the input each position of the output depends on, one backward per output position."""
    out, dim = reach.get("output", names[0]), reach["dim"]
    dy = inputs["d" + out]
    if max(dy.size(dim), inputs[reach["input"]].size(dim)) > reach["up_to"]:
        return {}
    rows = []
    for position in range(dy.size(dim)):
        fresh = leaf(inputs[reach["input"]])
        y = _named(call(_transposed({**inputs, reach["input"]: fresh}, params), params), names)[out]
        if y is None or not y.requires_grad or y.shape != dy.shape:
            return {}
        (grad,) = _grad(y.select(dim, position), fresh, dy.select(dim, position), allow_unused=True)
        grad = torch.zeros_like(fresh) if grad is None else grad
        rows.append(grad.abs().movedim(dim, 0).reshape(grad.size(dim), -1).amax(1))
    return {f"{out}.reach": torch.stack(rows)}


def _graph_recorded_operator():
    """autograd::graph_recorded, which a call that must not record a graph for autograd calls whenever an
    operation saves a tensor for backward, for problem.toml to forbid. It is registered when the kit loads,
    before the submission is imported (so the submission cannot register it first), once per process."""
    try:
        return torch.ops.autograd.graph_recorded.default
    except (AttributeError, RuntimeError):
        pass

    @torch.library.custom_op("autograd::graph_recorded", mutates_args=())
    def graph_recorded(saved: torch.Tensor) -> torch.Tensor:
        return saved.new_empty(0)
    return graph_recorded


_graph_recorded, _saved_tensors_hooks = _graph_recorded_operator(), torch.autograd.graph.saved_tensors_hooks


def _recorded(saved):
    _graph_recorded(saved)
    return saved


def _unpacked(saved):
    return saved


def viewed(params, inputs):
    """inputs with each one a test's `views` names replaced by the view its entry gives of it: `size`, `stride`
    and `offset` (in elements) as torch.as_strided takes them. The wire carries tensors whole and contiguous, so
    a strided layout (rows padded past their length, every k-th element, a transpose) is made on each side: by
    the kernel kind's driver for the call, and by its checker for the truth (runner/kit/kernel.py)."""
    views = params.get("views", {})
    return {name: tensor.as_strided(views[name]["size"], views[name]["stride"], views[name].get("offset", 0))
            if name in views else tensor for name, tensor in inputs.items()}


def run_standard(kind, interface, solution, params, inputs, ctx):
    """The standard driver of kind (function or module). With `records_graph = false` in the interface, every
    tensor an operation saves for backward calls autograd::graph_recorded: the problem forbids it, so that a
    backward written by hand cannot be autograd's (autograd's saved-tensor hooks are the calling thread's)."""
    # The tolerances assume true float32 matmuls; a submission may not loosen them for itself.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    run = run_module if kind == "module" else run_function
    if interface.get("records_graph", True):
        return run(solution, params, inputs, ctx, interface)
    with _saved_tensors_hooks(_recorded, _unpacked):
        return run(solution, params, inputs, ctx, interface)


def _seal(namespace):
    """Rebind every function of this module to a private copy of the module's names, taken at load, before the
    submission is imported: one that replaces kit._read or kit.run_module afterwards changes nothing a driver
    calls (a driver binds kit.run_standard when it loads, too)."""
    private = dict(namespace)
    for name, value in namespace.items():
        if isinstance(value, types.FunctionType) and value.__module__ == namespace["__name__"]:
            private[name] = types.FunctionType(value.__code__, private, name, value.__defaults__, value.__closure__)
    namespace.update({name: value for name, value in private.items() if isinstance(value, types.FunctionType)})


_seal(globals())


__all__ = ["aliases", "calls_observed", "each_call", "leaf", "parameter_reader", "run_function", "run_module", "run_standard",
           "show_exception", "viewed"]
