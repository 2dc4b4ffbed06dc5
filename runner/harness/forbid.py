"""Forbidden operators refused on every thread: their kernels replaced in the dispatcher itself.

The operator watch (measure.OperatorWatch) is a dispatch mode, and dispatch modes are thread-local: a call
made on a thread the submission started never reaches it. The dispatcher's kernel table is the one thing
every thread goes through, so each forbidden operator gets, for every dispatch key that computes it (the
CPU, CUDA and other backends, the composite-explicit kernels), a kernel that records the call and raises.
Threads stay allowed: distributed problems need them after the load (a new process group starts gloo's
threads), and problems without a forbidden operator never see this.

Operators that only decompose into others (composite-implicit ones such as aten::softmax.int) are left
alone: what they decompose into is what computes, and is what a problem forbids too (aten::_softmax).
The record lives in this process, which the submission shares: like the watch, this catches mistakes and
casual tampering, and the judge relies on what it checks itself.
"""

from __future__ import annotations

import threading
import warnings

import torch

from .measure import forbids

COMPOSITE_KEYS = ("CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional")
BACKENDS = ("CPU", "CUDA", "HIP", "XLA", "MPS", "IPU", "XPU", "HPU", "VE", "Lazy", "MTIA", "MAIA", "PrivateUse1",
            "PrivateUse2", "PrivateUse3")


def _computing_keys() -> list[str]:
    """Dispatch keys whose kernels compute (backends, with their sparse, quantized and nested variants)."""
    keys = list(COMPOSITE_KEYS)
    for name in torch._C.DispatchKey.__members__:
        if name.endswith(BACKENDS) and not name.startswith(("Autograd", "Autocast", "StartOf", "EndOf")):
            keys.append(name)
    return keys


class ForbiddenKernels:
    """Every forbidden operator's computing kernels replaced by one that records the call and raises."""

    def __init__(self, patterns: list[str]):
        self._lock = threading.Lock()
        self._calls: list[str] = []
        self._libraries: dict[str, torch.library.Library] = {}
        matches = forbids(patterns)
        keys = _computing_keys()
        with warnings.catch_warnings():
            # torch warns that a kernel is overridden, which is the point.
            warnings.simplefilter("ignore")
            for name in sorted({pattern.split(".")[0] for pattern in patterns}):
                for overload, qualified in _overloads(name):
                    if matches(f"{name}.{overload}"):
                        self._replace(name, overload, qualified, keys)

    def _replace(self, name: str, overload: str, qualified: str, keys: list[str]) -> None:
        namespace, operator = name.split("::", 1)
        library = self._libraries.get(namespace)
        if library is None:
            library = self._libraries[namespace] = torch.library.Library(namespace, "IMPL")
        full_name = f"{name}.{overload}"
        refuse = self._refusal(full_name)
        target = operator if overload == "default" else f"{operator}.{overload}"
        for key in keys:
            try:
                has_kernel = torch._C._dispatch_has_kernel_for_dispatch_key(qualified, key)
            except RuntimeError:
                continue
            if has_kernel:
                library.impl(target, refuse, key)

    def _refusal(self, full_name: str):
        def refuse(*args, **kwargs):
            with self._lock:
                if full_name not in self._calls:
                    self._calls.append(full_name)
            raise RuntimeError(f"{full_name} is forbidden in this problem")

        return refuse

    def take(self) -> list[str]:
        """The forbidden operators called since the last take, on any thread."""
        with self._lock:
            calls, self._calls = self._calls, []
        return calls


def _overloads(name: str) -> list[tuple[str, str]]:
    """(overload, the name the dispatcher knows it by) for each overload of a registered operator."""
    namespace, operator = name.split("::", 1)
    try:
        packet = getattr(getattr(torch.ops, namespace), operator)
    except (AttributeError, RuntimeError):
        return []
    return [(overload, name if overload == "default" else f"{name}.{overload}") for overload in packet.overloads()]
