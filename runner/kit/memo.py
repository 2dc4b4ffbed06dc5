"""Float64 runs and drawn inputs remembered on the trusted side: what was computed once for the same inputs, or
drawn once from the same generator state, is not computed or drawn again.

A checker's truth (the reference run here in float64) and the classic mistakes it is compared with depend only
on trusted code, the test's parameters and the inputs, all of them drawn on the trusted side from a seed. The
inputs come back to the same bytes whenever the seed does: each correct and wrong solution that `runner check`
judges on one seed, a re-judge, and each timed call of a Submit judged again. On two cores the truths were most
of a timed test's cost on the trusted side (0.23 s a call for multi-head attention at T = 256, nine
calls a test), and drawing the inputs a sixth to a quarter of what was left (`runner check swiglu`: 2.0 s of
the judging process's 11.7 s of CPU, mhsa's 2.0 of 6.9).

A run is keyed by what was run (the solution module's name, which carries the problem's slug and version,
and the driver function), the parameters, and a digest of every input's dtype, shape, requires_grad and bytes;
a draw by the spec module, the parameters and the generator's state before it, and it leaves the generator in
the state the draw left it in. What is handed out is a copy: nothing a caller does to it reaches the entry or
the next caller.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from types import ModuleType
from typing import Any, Callable

import torch

MAX_BYTES = 256 << 20


def inputs_digest(inputs: dict[str, torch.Tensor]) -> str:
    """A digest of the inputs' names, dtypes, shapes, requires_grad flags and contents."""
    digest = hashlib.blake2b(digest_size=20)
    for name in sorted(inputs):
        tensor = inputs[name]
        digest.update(json.dumps([name, str(tensor.dtype), list(tensor.shape), tensor.requires_grad]).encode())
        flat = tensor.detach().cpu().contiguous().reshape(-1)
        if flat.numel():
            digest.update(flat.view(torch.uint8).numpy().data)
    return digest.hexdigest()


class Remembered:
    """A thread-safe LRU of values made once per key, bounded by the bytes of the tensors they hold; a value another
    thread is making is waited for, not made twice."""

    def __init__(self, max_bytes: int = MAX_BYTES):
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._running: dict[str, threading.Event] = {}

    def get(self, key: str, make: Callable[[], Any], copy: Callable[[Any], Any]) -> Any:
        """A copy of the value kept for key, else of the one another thread is making for it once made, else of
        make()'s, kept. copy(value) makes what is kept and every copy handed out; a value it returns None for is
        not kept."""
        while True:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None:
                    self._entries.move_to_end(key)
                    return copy(entry[0])
                running = self._running.get(key)
                if running is None:
                    running = self._running[key] = threading.Event()
                    break
            running.wait()  # then the entry is there, or that one failed and this one is made here
        try:
            made = make()
            kept = copy(made)
            if kept is None:
                return made
            self._keep(key, kept)
            return copy(kept)
        finally:
            with self._lock:
                del self._running[key]
            running.set()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def _keep(self, key: str, kept: Any) -> None:
        size = _tensor_bytes(kept)
        if size > self.max_bytes:
            return
        with self._lock:
            self._entries[key] = (kept, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped


class Float64Runs(Remembered):
    """The float64 runs, each kept once per run, parameters and inputs."""

    def run(self, run: Callable, solution: ModuleType, params: dict, inputs: dict[str, torch.Tensor],
            compute: Callable[[], dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
        """compute()'s outputs, from an earlier identical run when there was one, or from the identical run
        another thread is making (the judge's prefetch) once it ends. A solution that is not a module (an
        object a checker built on the spot) has no name to key it by: its runs are not kept."""
        if not isinstance(solution, ModuleType):
            return compute()
        key = json.dumps([getattr(run, "__module__", None), getattr(run, "__qualname__", None), solution.__name__,
                          params, inputs_digest(inputs)], sort_keys=True, default=repr)
        return self.get(key, compute, _copied)


class DrawnInputs(Remembered):
    """spec.inputs's draws, each kept once per spec, parameters and generator state."""

    def draw(self, draw: Callable, spec: ModuleType, params: dict, generator: torch.Generator) -> dict[str, torch.Tensor]:
        """draw(params, generator), from an earlier draw of spec's with the same parameters from the same state,
        the generator then left where that draw left it. Inputs a copy cannot reproduce exactly (see
        _exact_copy) are drawn every time."""
        before = hashlib.blake2b(generator.get_state().numpy().data, digest_size=20).hexdigest()
        key = json.dumps([spec.__name__, params, before], sort_keys=True, default=repr)

        def made() -> tuple[dict[str, torch.Tensor], torch.Tensor]:
            return draw(params, generator), generator.get_state()

        inputs, after = self.get(key, made, _drawn_copy)
        generator.set_state(after)
        return inputs


def _copied(outputs: dict) -> dict:
    return {name: value.detach().clone() if isinstance(value, torch.Tensor) else value
            for name, value in outputs.items()}


def _drawn_copy(drawn: tuple[dict, torch.Tensor]) -> tuple[dict, torch.Tensor] | None:
    inputs, state = drawn
    copied = _exact_copy(inputs)
    return None if copied is None else (copied, state)


def _exact_copy(inputs: dict) -> dict | None:
    """A copy of every input as it is, strides, offsets and requires_grad included, two inputs that share storage
    sharing the copy's; None where some value is not a plain CPU tensor that is a leaf of the graph."""
    if not all(type(value) is torch.Tensor and value.device.type == "cpu" and value.layout == torch.strided
               and value.grad_fn is None and not value.is_quantized for value in inputs.values()):
        return None
    storages: dict[int, torch.UntypedStorage] = {}
    copied = {}
    for name, value in inputs.items():
        storage = value.untyped_storage()
        if storage.data_ptr() not in storages:
            storages[storage.data_ptr()] = storage.clone()
        tensor = torch.empty(0, dtype=value.dtype).set_(storages[storage.data_ptr()], value.storage_offset(),
                                                        value.size(), value.stride())
        copied[name] = tensor.requires_grad_(value.requires_grad)
    return copied


def _tensor_bytes(value: Any) -> int:
    """The bytes of the storages value's tensors hold, each storage once (a view keeps its whole base)."""
    storages = {}
    pending = [value]
    while pending:
        each = pending.pop()
        if isinstance(each, torch.Tensor):
            storage = each.untyped_storage()
            storages[storage.data_ptr()] = storage.nbytes()
        elif isinstance(each, dict):
            pending.extend(each.values())
        elif isinstance(each, tuple):
            pending.extend(each)
    return sum(storages.values())


FLOAT64_RUNS = Float64Runs()
DRAWN_INPUTS = DrawnInputs()
