"""The harness's request loop: start, import torch, say ready, then serve one submission.

Start-up and the submission are separate on purpose: a process can be started (torch imported, CUDA
initialised) before any submission exists, and receive one later over its pipe. Requests, in order:

    ranks  a distributed problem's: the same settings as the load; start every group of ranks, say when ready
    load   the submission's and the driver's source, the limits, the forbidden operators, the confinement
    run    one test case: inputs in, outputs, peak memory and observations out
    time   the same case on several fresh inputs, each call timed
    exit

Only the process that started the harness answers: a child the submission forked that returns into this
code exits silently instead of writing to the pipe.
"""

from __future__ import annotations

import contextlib
import importlib
import linecache
import os
import sys
import traceback
import types
from typing import Any

import torch
from torch.nn import functional
from torch.utils.checkpoint import checkpoint

from . import confine, limits, wire
from .forbid import ForbiddenKernels
from .measure import OperatorWatch, Stopwatch, allocator_for, clock_ns, release_free_memory, tampering

HARNESS_PID = os.getpid()
HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))
SOLUTION_FILENAME = "solution.py"
# Bound before any submission runs, so a submission that patches torch.equal cannot hide what it changed.
_equal = torch.equal
_clone = torch.Tensor.clone


class WrongAnswer(Exception):
    """Raised by a driver (or the harness) when a result is wrong in a way only this side can see."""


class MemoryLimitExceeded(Exception):
    """Raised by a driver when the submission keeps more memory than a rule of the problem allows (a module
    holding more bytes than its share), which no peak of live tensors during the call would show."""


class Context:
    """What a problem's driver gets besides the submission: device, rank, the operator counts."""

    WrongAnswer = WrongAnswer
    MemoryLimitExceeded = MemoryLimitExceeded

    def __init__(self, device: torch.device, rank: int = 0, world_size: int = 1):
        self.device = device
        self.rank = rank
        self.world_size = world_size
        self.watch: OperatorWatch | None = None

    @property
    def op_counts(self) -> dict[str, int]:
        """Operators called so far in the current request, by name (aten::mm.default: 3)."""
        return dict(self.watch.counts) if self.watch else {}

    @property
    def collective_counts(self) -> dict[str, int]:
        """The collectives among op_counts, however they were issued (c10d and functional collectives)."""
        return {name: count for name, count in self.op_counts.items()
                if name.startswith(("c10d::", "_c10d_functional::")) and "wait" not in name
                and "wrap_tensor" not in name}


class Session:
    """One submission's state inside the harness."""

    def __init__(self, load: wire.Frame):
        header = load.header
        self.device = torch.device(header.get("device", "cpu"))
        self.forbidden = list(header.get("forbidden", []))
        # The judge's policy; a load without one gets the strictest.
        self.confinement = {"processes": False, "shared_memory": False, **header.get("confine", {})}
        self.kernels: ForbiddenKernels | None = None
        self.context = Context(self.device, int(header.get("rank", 0)), int(header.get("world_size", 1)))
        for name, source in load.blobs.items():
            if name.startswith("module:"):
                module = name.removeprefix("module:")
                _module_from_source(module, source.decode(), f"{module}.py")
        self.driver = _module_from_source("judge_driver", load.blobs["driver"].decode(), "driver.py")
        self.stopwatch = Stopwatch(self.device)
        self.solution: types.ModuleType | None = None

    def load_solution(self, source: bytes, entry_points: list[str]) -> dict[str, Any]:
        # Last of all before the submission's first line: what it may not do from here on, on any thread.
        if self.forbidden:
            self.kernels = ForbiddenKernels(self.forbidden)
        confine.apply(device=self.device.type, **self.confinement)
        watch = OperatorWatch(self.forbidden)
        try:
            with watch:
                self.solution = _module_from_source("solution", source.decode("utf-8"), SOLUTION_FILENAME)
        except BaseException as error:  # noqa: BLE001 - SystemExit and KeyboardInterrupt are the user's too
            _leave_if_forked()
            return {"type": "loaded", "forbidden": self._forbidden_calls(watch),
                    "error": {"status": "compile_error", "message": describe(error)}}
        _leave_if_forked()
        missing = [name for name in entry_points if not hasattr(self.solution, name)]
        answer: dict[str, Any] = {"type": "loaded", "forbidden": self._forbidden_calls(watch)}
        if missing:
            answer["error"] = {"status": "compile_error",
                               "message": f"the file must define {', '.join(missing)} (see the starter code)"}
        return answer

    def _forbidden_calls(self, watch: OperatorWatch) -> list[str]:
        """The forbidden operators the watch saw on this thread, and those called on any other since the last
        answer."""
        found = list(watch.forbidden_calls)
        for name in self.kernels.take() if self.kernels else []:
            if name not in found:
                found.append(name)
        return found

    def run(self, frame: wire.Frame) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
        """One checked call: outputs, peak live-tensor bytes, forbidden calls, changed inputs."""
        inputs = _to_device(frame.tensors, self.device)
        originals = {name: _clone(tensor) for name, tensor in inputs.items()}
        watch = OperatorWatch(self.forbidden, track_memory=True)
        self.context.watch = watch
        answer: dict[str, Any] = {"type": "result"}
        if self.device.type == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            answer["cuda_base_bytes"] = torch.cuda.memory_allocated()
        outputs: dict[str, torch.Tensor] = {}
        started = clock_ns()
        try:
            with watching(watch, answer):
                watch.reset_peak()
                produced = self.driver.run(self.solution, frame.header.get("params", {}), inputs, self.context)
            outputs = plain_outputs(produced, self.device)
        except BaseException as error:  # noqa: BLE001
            _leave_if_forked()
            answer["error"] = classify(error)
        _leave_if_forked()
        answer["time_ns"] = clock_ns() - started
        answer["peak_bytes"] = watch.peak_bytes
        if self.device.type == "cuda":
            answer["cuda_peak_bytes"] = torch.cuda.max_memory_allocated()
        answer["forbidden"] = self._forbidden_calls(watch)
        answer["op_counts"] = dict(watch.counts)
        answer["modified_inputs"] = [name for name, tensor in inputs.items() if not _same_bits(tensor, originals[name])]
        return answer, outputs

    def time(self, frame: wire.Frame) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
        """Each iteration's inputs are copied into the same buffers, so results keyed by address go stale. Each
        call, the warm-up included, must leave them as they were sent, as a checked call must."""
        count = int(frame.header["iterations"])
        params = frame.header.get("params", {})
        per_iteration = [{name.split("/", 1)[1]: tensor for name, tensor in frame.tensors.items()
                          if name.startswith(f"{index}/")} for index in range(count)]
        buffers = {name: tensor.to(self.device, copy=True) for name, tensor in per_iteration[0].items()}
        # The watch looks for forbidden operators; where none is, it would only add its cost per operator to
        # both sides' times, the most to a style of many small operators.
        watch = OperatorWatch(self.forbidden) if self.forbidden else None
        self.context.watch = watch
        answer: dict[str, Any] = {"type": "timed", "times_ns": [], "modified_inputs": []}
        outputs: dict[str, torch.Tensor] = {}
        try:
            with watching(watch, answer):
                for _ in range(int(frame.header.get("warmup", 1))):
                    self.driver.run(self.solution, params, buffers, self.context)
                    _note_changed(buffers, per_iteration[0], answer)
                for index in range(count):
                    for name, tensor in per_iteration[index].items():
                        buffers[name].copy_(tensor)
                    call = lambda: self.driver.run(self.solution, params, buffers, self.context)  # noqa: E731
                    produced, elapsed = self.stopwatch.time_ns(call)
                    answer["times_ns"].append(elapsed)
                    _note_changed(buffers, per_iteration[index], answer)
                    for name, tensor in plain_outputs(produced, self.device).items():
                        outputs[f"{index}/{name}"] = tensor.detach().to("cpu", copy=True)
        except BaseException as error:  # noqa: BLE001
            _leave_if_forked()
            answer["error"] = classify(error)
        _leave_if_forked()
        answer["forbidden"] = self._forbidden_calls(watch) if watch else []
        return answer, outputs


@contextlib.contextmanager
def watching(watch: OperatorWatch | None, answer: dict[str, Any]):
    """Run the body under watch (if any); record in answer what the body did to the watch, if anything."""
    if watch is None:
        answer["tamper"] = []
        yield
        return
    watch.__enter__()
    try:
        yield
    finally:
        answer["tamper"] = tampering(watch)
        if not answer["tamper"]:
            watch.__exit__(None, None, None)


def _module_from_source(name: str, source: str, filename: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = filename
    # Tracebacks quote the submission's lines from here; the file itself is never on disk in the sandbox.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    sys.modules[name] = module
    exec(compile(source, filename, "exec", dont_inherit=True), module.__dict__)
    return module


def _to_device(tensors: dict[str, torch.Tensor], device: torch.device) -> dict[str, torch.Tensor]:
    return {name: tensor.to(device) for name, tensor in tensors.items()}


def _note_changed(inputs: dict[str, torch.Tensor], sent: dict[str, torch.Tensor], answer: dict[str, Any]) -> None:
    """Add to answer's modified_inputs each input a timed call left different from what was sent (outside the
    call's time)."""
    for name, tensor in inputs.items():
        if name not in answer["modified_inputs"] and not _same_bits(tensor, sent[name].to(tensor.device)):
            answer["modified_inputs"].append(name)


def _same_bits(tensor: torch.Tensor, original: torch.Tensor) -> bool:
    if tensor.shape != original.shape or tensor.dtype != original.dtype:
        return False
    return bool(_equal(tensor.detach().reshape(-1).view(torch.uint8), original.reshape(-1).view(torch.uint8)))


def plain_outputs(produced: Any, device: torch.device) -> dict[str, torch.Tensor]:
    """The driver's outputs, each checked to be a plain tensor on the judged device."""
    if not isinstance(produced, dict):
        raise WrongAnswer(f"the driver produced {type(produced).__name__}, not a dict of tensors")
    checked = {}
    for name, value in produced.items():
        if type(value) is not torch.Tensor:
            kind = type(value)
            what = f"a {kind.__module__}.{kind.__qualname__}"
            if isinstance(value, torch.Tensor):
                what += " (a subclass of torch.Tensor)"
            raise WrongAnswer(f"{name}: expected a plain torch.Tensor, got {what}")
        if value.device.type != device.type:
            raise WrongAnswer(f"{name}: expected a tensor on {device.type}, got one on {value.device.type}")
        if value.layout != torch.strided:
            raise WrongAnswer(f"{name}: expected a dense tensor, got layout {value.layout}")
        checked[name] = value
    return checked


def classify(error: BaseException) -> dict[str, str]:
    """A status and a message for an exception raised while a test ran."""
    if isinstance(error, WrongAnswer):
        return {"status": "wrong_answer", "message": str(error)}
    if isinstance(error, MemoryLimitExceeded):
        return {"status": "memory_limit_exceeded", "message": str(error)}
    text = str(error)
    if isinstance(error, (MemoryError, torch.cuda.OutOfMemoryError)) or "can't allocate memory" in text \
            or "out of memory" in text.lower():
        return {"status": "memory_limit_exceeded", "message": describe(error)}
    return {"status": "runtime_error", "message": describe(error)}


def describe(error: BaseException, frames: int = 8) -> str:
    """The exception and the last few frames of its traceback, without the harness's own frames."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(HARNESS_DIR):
        tb = tb.tb_next
    lines = traceback.format_exception(type(error), error, tb, limit=-frames)
    text = "".join(lines)[-4000:].strip()
    note = confine.refusal_note(error)
    return f"{text}\n({note})" if note else text


def _leave_if_forked() -> None:
    if os.getpid() != HARNESS_PID:
        os._exit(0)


def _flush_output() -> None:
    """Push what the submission printed into the pipes before its answer goes: the judge keeps only the
    output that came before the first hidden test, and a pipe's stdout is block-buffered, so a sample test's
    prints would otherwise still sit in the buffer then."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - the submission may have replaced or closed the streams
            pass
    _leave_if_forked()


def warm_up(device: torch.device) -> None:
    """Pay torch's first-use costs before ready: the autograd engine and its lazily imported checks, the
    dispatch-mode machinery, the BLAS library's initialisation (on CUDA, the context and cuBLAS, hundreds of MiB of host memory that would
    otherwise look like the first test's), so they count against no submission."""
    x = torch.randn(8, 8, device=device, requires_grad=True)
    with OperatorWatch([], track_memory=True):
        y = (x @ x).exp() / x.exp().sum(-1, keepdim=True)
        # An explicit gradient makes autograd import its symbolic-shape checks (sympy) on first use.
        y.backward(torch.ones_like(y))
    # The first backward through the common layers maps libtorch's code for them into the resident set:
    # growth the judge cannot see as tensors, so paid here instead.
    _common_layers(x, device).sum().backward()
    if device.type == "cuda":
        torch.cuda.synchronize()


def _common_layers(x: torch.Tensor, device: torch.device, *, checkpointed: bool = False) -> torch.Tensor:
    weight = torch.randn(8, 8, device=device, requires_grad=True)

    def block(t: torch.Tensor) -> torch.Tensor:
        hidden = functional.gelu(functional.linear(functional.layer_norm(t, (8,)), weight))
        return functional.silu(functional.dropout(hidden, 0.5, training=True)).softmax(-1)

    return checkpoint(block, x, use_reentrant=False) if checkpointed else block(x)


def warm_up_dynamo(device: torch.device) -> None:
    """torch._dynamo, which torch.optim's first step, torch.utils.checkpoint and torch.func's transforms
    import on first use, and a first checkpointed backward (libtorch's code for it; both costs are in
    docs/speed.md): asked for by the judge before the load, only where the code that will run uses them, so that no
    call pays for them as memory of its own and no other sandbox pays their start-up cost."""
    importlib.import_module("torch._dynamo")
    x = torch.randn(8, 8, device=device, requires_grad=True)
    _common_layers(x, device, checkpointed=True).sum().backward()
    if device.type == "cuda":
        torch.cuda.synchronize()


def warm_up_triton(device: torch.device) -> None:
    """Triton, for a kernel problem, before the load: imported and, on the CPU (where the sandbox's environment
    switches its interpreter on), one kernel launched, since the interpreter's first launch builds what it keeps
    (about 100 MiB resident) that no call should count as its own."""
    from . import triton_warm

    if device.type == "cpu":
        triton_warm.launch_once()


def main(argv: list[str]) -> None:
    """argv: request fd, response fd, device[, rank, world size, port, collective timeout for a rank]."""
    requests = wire.open_pipe(int(argv[0]), "r")
    responses = wire.open_pipe(int(argv[1]), "w")
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    warm_up(torch.device(argv[2]))
    if len(argv) > 3:
        from .ranks import join_group

        join_group(int(argv[3]), int(argv[4]), int(argv[5]), float(argv[6]))
    _serve_started(requests, responses)


def serve_rank(request_fd: int, response_fd: int, rank: int, world_size: int, port: int, timeout_s: float,
               handoff_fd: int) -> None:
    """A rank forked from its controller (see ranks.py): torch is warm already; join the group, hand the
    controller its sockets, and serve."""
    global HARNESS_PID
    HARNESS_PID = os.getpid()
    from .ranks import join_group

    join_group(rank, world_size, port, timeout_s, handoff_fd)
    _serve_started(wire.open_pipe(request_fd, "r"), wire.open_pipe(response_fd, "w"))


def serve_forked(request_fd: int, response_fd: int) -> None:
    """A harness forked from the zygote (zygote.py), which imported torch and warmed up on one thread: take the
    judge's number of threads, warm up again and serve. The second warm-up costs milliseconds: what it pays is
    the zygote's library code mapped into this process (a fork copies no page-table entry for it), growth of
    the resident set that would otherwise come in the first test."""
    global HARNESS_PID
    HARNESS_PID = os.getpid()
    # The arguments of a harness started afresh (python -m harness <request fd> <response fd> cpu), not the
    # zygote's, for whatever in the process reads them.
    sys.argv = [os.path.join(HARNESS_DIR, "__main__.py"), str(request_fd), str(response_fd), "cpu"]
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    warm_up(torch.device("cpu"))
    _serve_started(wire.open_pipe(request_fd, "r"), wire.open_pipe(response_fd, "w"))


def _serve_started(requests, responses) -> None:
    """Say ready, take the load, and serve it: one submission, or (a controller) its group of ranks."""
    wire.write_frame(responses, {"type": "ready", "pid": os.getpid(), "torch": torch.__version__,
                                 "python": sys.version.split()[0]})
    load = wire.read_frame(requests)
    while load.kind == "warm":
        device = torch.device(load.header.get("device", "cpu"))
        warm_up_triton(device) if load.header.get("triton") else warm_up_dynamo(device)
        wire.write_frame(responses, {"type": "warmed"})
        load = wire.read_frame(requests)
    if "rank" not in load.header:
        # A rank inherits the limits its controller set; it could not raise them again anyway.
        limits.apply(load.header.get("limits", {}))
    if load.kind == "ranks":
        from .ranks import serve_ranks

        serve_ranks(load, requests, responses, serve_rank)
        return
    session = Session(load)
    answer = session.load_solution(load.blobs["solution"], list(load.header.get("entry_points", [])))
    wire.write_frame(responses, answer)
    serve(session, requests, responses)


def serve(session: Session, requests, responses) -> None:
    """Answer run and time requests until exit or the end of the pipe."""
    while True:
        try:
            frame = wire.read_frame(requests)
        except wire.WireError:
            return
        if frame.kind not in ("run", "time"):
            return
        allocator_for(checked=frame.kind == "run")
        answer, outputs = session.run(frame) if frame.kind == "run" else session.time(frame)
        release_free_memory()
        _flush_output()
        try:
            wire.write_frame(responses, answer, outputs)
        except wire.WireError as error:
            wire.write_frame(responses, {"type": answer["type"], "error": {
                "status": "wrong_answer", "message": f"the outputs cannot be returned: {error}"}})
