"""The kernel kind's sandbox half, shipped as the module `kit_kernel`: the submission's host function called as
problem.toml's `[interface]` pins it, its Triton kernels run by Triton's interpreter with every access to global
memory checked and counted. It decides nothing.

Where the process has no GPU its environment has TRITON_INTERPRET=1 (runner/sandbox, from the process's start, since
triton.language reads it when first imported), so every `@triton.jit` the submission defines is interpreted (NumPy,
in this process: no compiler and no other process). Loaded with the driver, before the submission is imported,
this module wraps the interpreter's launch and its loads and stores. During a judged call:

- a kernel may touch only memory of the tensors its launch was passed: an access outside all of them stops the
  call as an illegal memory access, naming the kernel, the program and the argument (a missing mask on the
  last block, a stride assumed contiguous);
- it may not store into an input (also an illegal memory access, raised);
- it may load an input of the call, or bytes a kernel of this call stored earlier, and nothing else: memory the
  host function filled (a `.contiguous()` copy, a `torch.zeros`, NumPy work) is host computation;
- the inputs stay as they were sent at every launch; between launches and after the last, the bytes kernels
  stored stay as they stored them, and every element of each output was stored by a kernel: the host function
  allocates and launches, the kernels compute. A call that breaks one of these is refused (`kernel.refused`).

Each load and store counts the bytes of its unmasked lanes, every time it runs, per kernel. What it reports
besides the interface's outputs (kit.run_function's reports):
    traffic.load, traffic.store   int64 (): bytes the call's kernels loaded from and stored to global memory
    traffic.launches              int64 (): kernel launches
    traffic.widest                int64 (): the most lanes (block elements, masked ones included) one load or
                                  store spanned, which a problem's `[kernel] max_block` bounds
    kernel.refused                int64 (): why the call was stopped or its result refused (INPUT_CHANGED, ...),
                                  0 when it was not, and kernel.refused.text, the details in words; the interface's
                                  outputs are not reported when it was
Text reports are TEXT_BYTES long, NUL-padded, so that every run's layout is the reference's.
    traffic.kernels               uint8: "name loads stores launches" per kernel, one a line, UTF-8
    host.operators                uint8: PyTorch operators the host function called outside launches beyond
                                  allocation and views (HOST_OPERATORS), comma-joined, UTF-8; empty when none

On a GPU the real compiler runs and nothing is counted: none of the traffic reports is made, and the trusted
side judges traffic only where the reference's run reported it. The counts live in this process, which the
submission shares: like the operator watch, they catch mistakes and casual tampering (docs/judge.md).
"""

import ctypes
import inspect
import traceback

import numpy as np
import torch

import triton
from triton.runtime import interpreter

import kit

# The sandbox's environment switches the interpreter on where the process has no GPU (runner/sandbox, _environment).
INTERPRETED = bool(triton.knobs.runtime.interpret)

# The size of each text report (UTF-8, NUL-padded).
TEXT_BYTES = 1024
# Why a call was refused, as `kernel.refused` reports it (runner/kit/kernel.py words each on the trusted side).
INPUT_CHANGED, HOST_CHANGED, UNSTORED_LOAD, OUTPUT_NOT_FROM_KERNEL, OUTPUT_UNWRITTEN, OUTPUT_CHANGED = range(1, 7)
# Operators the host function may call besides its launches: allocation, and views of what it was given.
HOST_OPERATORS = frozenset({
    "aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty", "aten::new_empty_strided",
    "aten::view", "aten::_reshape_alias", "aten::_unsafe_view", "aten::reshape", "aten::as_strided", "aten::t",
    "aten::transpose", "aten::permute", "aten::expand", "aten::unsqueeze", "aten::squeeze", "aten::select",
    "aten::slice", "aten::alias", "aten::detach", "aten::lift_fresh", "aten::unbind", "aten::split",
    "aten::split_with_sizes", "aten::chunk", "aten::narrow", "aten::flatten", "aten::unflatten", "aten::view_as",
    "aten::expand_as", "aten::movedim", "aten::is_same_size",
})


class IllegalMemoryAccess(RuntimeError):
    """A kernel touched memory it may not: outside every tensor its launch was passed, or an input it stored
    into. The GPU's own words for the first are an illegal memory access."""


class _Buffer:
    """One storage a launch was passed that is not an input: which of its bytes kernels stored, and what they
    held when the last launch ended."""

    __slots__ = ("start", "end", "written", "snapshot")

    def __init__(self, start, end):
        self.start, self.end = start, end
        self.written = np.zeros(end - start, dtype=bool)
        self.snapshot = None


def _bytes_at(start, end):
    return np.frombuffer((ctypes.c_char * (end - start)).from_address(start), dtype=np.uint8)


def _span(tensor):
    storage = tensor.untyped_storage()
    start = storage.data_ptr()
    return (start, start + storage.nbytes()) if start and storage.nbytes() else None


def _element_offsets(tensor):
    """The byte offset, from its storage's start, of each element of tensor's view."""
    offsets = np.array([tensor.storage_offset()], dtype=np.int64)
    for size, stride in zip(tensor.shape, tensor.stride()):
        offsets = (offsets[:, None] + np.arange(size, dtype=np.int64)[None, :] * stride).reshape(-1)
    return offsets * tensor.element_size()


class _Meter:
    """The state of one judged call: its inputs, the buffers kernels stored into, the counts."""

    def __init__(self):
        self.active, self.launch = False, None
        self.start(None)

    def start(self, ctx):
        """A judged run begins: its counts start from nothing."""
        self.ctx, self.kernels, self.host, self.widest = ctx, {}, set(), 0

    def begin(self, inputs):
        """A call of the host function begins, on inputs (by name)."""
        self.active, self.violation = True, None
        self.inputs = []
        for name, tensor in inputs.items():
            span = _span(tensor) if isinstance(tensor, torch.Tensor) and tensor.device.type == "cpu" else None
            if span and all(span != known[:2] for known in self.inputs):
                self.inputs.append((*span, name, _bytes_at(*span).copy()))
        self.buffers = {}
        self.operators_before = dict(self.ctx.op_counts)
        self.launch_operators = {}

    def end(self):
        """The call returned or raised: the operators it called outside its launches, beyond HOST_OPERATORS."""
        self.active = False
        for operator, count in self.ctx.op_counts.items():
            own = count - self.operators_before.get(operator, 0) - self.launch_operators.get(operator, 0)
            if own > 0 and operator.rsplit(".", 1)[0] not in HOST_OPERATORS:
                self.host.add(operator)

    def refuse(self, error):
        """Remember the call's first violation (a host function that catches it is still judged by it), with the
        line of the submission that made it."""
        if self.violation is None:
            line = next((frame for frame in reversed(traceback.extract_stack()) if frame.filename == "solution.py"),
                        None)
            if line is not None:
                error.args = (f"{error.args[0]} (solution.py, line {line.lineno}, in {line.name}: "
                              f"{(line.line or '').strip()})",)
            self.violation = error
        raise error

    # -- launches

    def launched(self, executor, args, kwargs, original):
        name = getattr(executor.fn, "__name__", "kernel")
        try:
            bound = inspect.signature(executor.fn).bind(*args, **kwargs).arguments
        except TypeError:
            bound = {}
        self._unchanged_since_last_launch(f"before launching {name}")
        spans = []
        for argument, value in bound.items():
            if not isinstance(value, torch.Tensor) or value.device.type != "cpu":
                continue
            span = _span(value)
            if span is None:
                continue
            given = next((entry for entry in self.inputs if entry[:2] == span), None)
            if given is not None:
                spans.append((*span, argument, None))
                continue
            buffer = self.buffers.get(span[0])
            if buffer is None or buffer.end != span[1]:
                buffer = self.buffers[span[0]] = _Buffer(*span)
            spans.append((*span, argument, buffer))
        spans.sort(key=lambda entry: entry[0])
        counts = self.kernels.setdefault(name, [0, 0, 0])
        counts[2] += 1
        self.launch = (name, spans, np.array([s[0] for s in spans], dtype=np.int64),
                       np.array([s[1] for s in spans], dtype=np.int64), counts)
        before = dict(self.ctx.op_counts)
        try:
            return original(executor, *args, **kwargs)
        finally:
            self.launch = None
            after = self.ctx.op_counts
            for operator, count in after.items():
                self.launch_operators[operator] = self.launch_operators.get(operator, 0) + count - before.get(operator, 0)
            for _, _, _, buffer in spans:
                if buffer is not None:
                    buffer.snapshot = _bytes_at(buffer.start, buffer.end).copy()

    def _unchanged_since_last_launch(self, when):
        for start, end, name, original in self.inputs:
            if not np.array_equal(_bytes_at(start, end), original):
                self.refuse(_Refused(INPUT_CHANGED, f"{name}, {when}"))
        for buffer in self.buffers.values():
            if buffer.snapshot is not None and not np.array_equal(_bytes_at(buffer.start, buffer.end), buffer.snapshot):
                self.refuse(_Refused(HOST_CHANGED, when))

    # -- accesses

    def accessed(self, how, ptrs, mask, itemsize):
        if self.launch is None:
            return
        name, spans, starts, ends, counts = self.launch
        addresses = np.broadcast_to(ptrs, np.broadcast_shapes(np.shape(ptrs), np.shape(mask)))
        lanes = np.broadcast_to(mask, addresses.shape).astype(bool)
        self.widest = max(self.widest, lanes.size)
        taken = addresses[lanes].astype(np.int64).reshape(-1)
        if taken.size == 0:
            return
        index = np.searchsorted(starts, taken, side="right") - 1
        inside = (index >= 0) & (taken + itemsize <= ends[np.clip(index, 0, None)]) if len(spans) else \
            np.zeros(taken.shape, dtype=bool)
        if not inside.all():
            self.refuse(IllegalMemoryAccess(self._outside(name, how, taken[~inside][0], itemsize, spans)))
        for position, (start, _, argument, buffer) in enumerate(spans):
            mine = taken[index == position] - start
            if mine.size == 0:
                continue
            if buffer is None:
                if how == "store":
                    self.refuse(IllegalMemoryAccess(f"{name}, program {_program()}: tl.store writes into {argument}, an input "
                                              "of the call, which must stay as it was given"))
                continue
            if how == "store":
                for byte in range(itemsize):
                    buffer.written[mine + byte] = True
            elif not (buffer.written[mine].all() and buffer.written[mine + itemsize - 1].all()):
                self.refuse(_Refused(UNSTORED_LOAD, f"{name}, program {_program()}, reading {argument}"))
        counts[0 if how == "load" else 1] += taken.size * itemsize

    @staticmethod
    def _outside(name, how, address, itemsize, spans):
        action = "tl.load reads" if how == "load" else "tl.store writes"
        where = f"{name}, program {_program()}: {action} {itemsize} bytes at an address outside every tensor passed"
        nearest = min(spans, key=lambda entry: min(abs(int(address) - entry[0]), abs(int(address) - entry[1])),
                      default=None)
        if nearest is None:
            return f"{where} (an illegal memory access)"
        start, end, argument, _ = nearest
        held = (end - start) // itemsize
        if start <= address < end:
            relation = f"straddling the end of {argument}"
        else:
            relation = (f"element {(int(address) - start) // itemsize} of {argument}, which holds {held} elements of "
                        f"{itemsize} bytes" + (" (past its end)" if address >= end else " (before its start)"))
        return f"{where}: {relation}, an illegal memory access. Check the mask of the last block and the strides"

    # -- the result

    def finished(self, outputs):
        """Every element of each output stored by a kernel, and unchanged since."""
        for output in outputs:
            if not isinstance(output, torch.Tensor) or output.device.type != "cpu" or output.numel() == 0:
                continue
            span = _span(output)
            buffer = self.buffers.get(span[0]) if span else None
            if buffer is None or buffer.end != span[1]:
                if any(entry[:2] == span for entry in self.inputs):
                    continue  # an input returned: the checker says so
                self.refuse(_Refused(OUTPUT_NOT_FROM_KERNEL, f"the output of shape {tuple(output.shape)}"))
            offsets = _element_offsets(output)
            unwritten = ~(buffer.written[offsets] & buffer.written[offsets + output.element_size() - 1])
            if unwritten.any():
                first = int(np.argmax(unwritten))
                self.refuse(_Refused(OUTPUT_UNWRITTEN, f"{int(unwritten.sum())} of the {output.numel()} elements of the output "
                                     f"of shape {tuple(output.shape)}, the first at flat index {first}"))
            if buffer.snapshot is None or not np.array_equal(_bytes_at(buffer.start, buffer.end), buffer.snapshot):
                self.refuse(_Refused(OUTPUT_CHANGED, f"the output of shape {tuple(output.shape)}"))
        self._unchanged_since_last_launch("when the host function returned")

    def reports(self, device):
        found = {"host.operators": _text(", ".join(sorted(self.host)), device)}
        if not INTERPRETED:
            return found
        loads = sum(counts[0] for counts in self.kernels.values())
        stores = sum(counts[1] for counts in self.kernels.values())
        launches = sum(counts[2] for counts in self.kernels.values())
        lines = "\n".join(f"{name} {counts[0]} {counts[1]} {counts[2]}" for name, counts in self.kernels.items())
        found.update({"traffic.load": torch.tensor(loads, dtype=torch.int64, device=device),
                      "traffic.store": torch.tensor(stores, dtype=torch.int64, device=device),
                      "traffic.launches": torch.tensor(launches, dtype=torch.int64, device=device),
                      "traffic.kernels": _text(lines, device),
                      "traffic.widest": torch.tensor(self.widest, dtype=torch.int64, device=device)})
        return found


def _text(words, device):
    """words as UTF-8, cut or NUL-padded to TEXT_BYTES: every run reports the same layout as the reference's."""
    return torch.tensor(list(words.encode()[:TEXT_BYTES].ljust(TEXT_BYTES, b"\0")), dtype=torch.uint8, device=device)


def _program():
    return tuple(int(i) for i in interpreter.interpreter_builder.grid_idx)


class _Refused(Exception):
    """A rule of the kind broken in a way that makes the result wrong: reported (`kernel.refused`), not raised. Its
    words are the particulars only (which kernel, program, argument, output): the trusted side says the rest."""

    def __init__(self, code, words):
        super().__init__(words)
        self.code = code


_meter = _Meter()


def _instrument():
    """Wrap the interpreter's launch, loads and stores (once per process, before the submission loads)."""
    if not INTERPRETED:
        return
    builder = interpreter.interpreter_builder
    load, store = builder.create_masked_load, builder.create_masked_store
    element_size = interpreter._get_np_dtype

    def create_masked_load(ptrs, mask, other, cache_policy, is_volatile):
        itemsize = np.dtype(element_size(ptrs.get_element_ty())).itemsize
        _meter.accessed("load", ptrs.data, mask.data, itemsize)
        return load(ptrs, mask, other, cache_policy, is_volatile)

    def create_masked_store(ptrs, value, mask, cache_policy):
        itemsize = np.dtype(element_size(ptrs.get_element_ty())).itemsize
        _meter.accessed("store", ptrs.data, mask.data, itemsize)
        return store(ptrs, value, mask, cache_policy)

    def refused(what):
        def refuse(*args, **kwargs):
            if _meter.launch is not None:
                _meter.refuse(IllegalMemoryAccess(f"{what} are not judged here: this problem's kernels use tl.load and "
                                          "tl.store only"))
            _meter.refuse(IllegalMemoryAccess(f"{what} outside a judged call"))
        return refuse

    builder.create_masked_load, builder.create_masked_store = create_masked_load, create_masked_store
    for method in ("create_atomic_cas", "create_atomic_rmw", "create_atomic_load", "create_atomic_store",
                   "create_atomic_poll", "create_descriptor_reduce"):
        if hasattr(builder, method):
            setattr(builder, method, refused("atomic operations"))
    original = interpreter.GridExecutor.__call__

    def launch(executor, *args, **kwargs):
        if not _meter.active:
            return original(executor, *args, **kwargs)
        return _meter.launched(executor, args, kwargs, original)

    interpreter.GridExecutor.__call__ = launch


_instrument()



def run(interface, solution, params, inputs, ctx):
    """The kernel kind's driver: kit.run_function with the host function called under the meter."""
    if ctx.device.type == "cpu" and not INTERPRETED:
        raise RuntimeError("a CPU judgement of a kernel needs Triton's interpreter, but this process sees a GPU")
    host, names = getattr(solution, interface["call"]), interface.get("args", [])
    _meter.start(ctx)
    inputs = kit.viewed(params, inputs)

    def metered(*args, **kwargs):
        _meter.begin({**{names[i] if i < len(names) else f"argument {i}": value for i, value in enumerate(args)},
                      **kwargs})
        try:
            result = host(*args, **kwargs)
            if _meter.violation is None:
                _meter.finished(result if isinstance(result, (tuple, list)) else [result])
        except Exception:  # noqa: BLE001 - the call's first violation, if any, is what it is judged by
            if _meter.violation is None:
                raise
        finally:
            _meter.end()
        if _meter.violation is not None:
            raise _meter.violation.with_traceback(None) from None
        return result

    try:
        outputs = kit.run_function(_Host(interface["call"], metered), params, inputs, ctx, interface)
        refused = _Refused(0, "")
    except _Refused as error:
        # Reported as data, which the trusted side words itself: the words here reach only a sample test's page.
        outputs, refused = {}, error
    outputs.update(_meter.reports(ctx.device))
    outputs.update({"kernel.refused": torch.tensor(refused.code, dtype=torch.int64, device=ctx.device),
                    "kernel.refused.text": _text(str(refused), ctx.device)})
    return outputs


class _Host:
    """The submission as run_function sees it: the host function, metered."""

    def __init__(self, name, function):
        setattr(self, name, function)


__all__ = ["HOST_OPERATORS", "INTERPRETED", "IllegalMemoryAccess", "run"]
