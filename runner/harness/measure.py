"""Observation inside the sandbox: operators called, forbidden ones, peak live-tensor memory, time.

Everything here shares the process with the submission, which can change it; the judge treats these
figures as claims. Tampering that is cheap to notice (the mode popped from the dispatch stack, its methods
replaced) is reported so the judge can name it; the judge cross-checks the rest against what it observes
from outside (CPU time and peak resident memory of the sandbox).
"""

from __future__ import annotations

import ctypes
import time
import weakref
from collections import Counter

import torch
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode

# Taken before any submission runs, so patching the time module later changes nothing here.
clock_ns = time.perf_counter_ns
thread_clock_ns = time.thread_time_ns

# glibc's mallopt parameters (malloc.h).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
# Checked calls: each block above this is a mapping of its own, returned to the kernel when freed. Timed
# calls: glibc's own steady state, blocks up to 32 MiB reused from the heap, kept up to twice that.
EXACT_MMAP_BYTES = 128 << 10
FAST_MMAP_BYTES = 32 << 20


def op_name(func) -> str:
    """An operator's name as problems list it: namespace::name.overload (aten::_softmax.default)."""
    return f"{func._schema.name}.{func._overloadname}"


def forbids(patterns: list[str]):
    """A predicate on operator names: a pattern without an overload matches every overload."""
    exact = {p for p in patterns if "." in p.split("::")[-1]}
    bare = {p for p in patterns if p not in exact}

    def matches(name: str) -> bool:
        return name in exact or name.rsplit(".", 1)[0] in bare

    return matches


# Operators that return (a view of) an operand's storage although their schemas do not say so.
UNANNOTATED_ALIASES = frozenset({"aten::_unsafe_view", "aten::lift"})


class _Operator:
    """What the watch needs of one operator overload, read once: its name, whether it is forbidden, and whether
    an output may live in an operand's storage (a view, an in-place or out= write: an alias annotation on a
    return in its schema, or one of UNANNOTATED_ALIASES)."""

    __slots__ = ("name", "forbidden", "aliases")

    def __init__(self, func, is_forbidden):
        self.name = op_name(func)
        self.forbidden = is_forbidden(self.name)
        self.aliases = (func._schema.name in UNANNOTATED_ALIASES
                        or any(r.alias_info is not None for r in func._schema.returns))


class OperatorWatch(TorchDispatchMode):
    """Counts every operator that reaches the dispatcher and records forbidden ones.

    With track_memory, also follows each tensor storage created while active, so `peak_bytes` is the
    highest sum of bytes of such storages alive at once (autograd's saved tensors included, since they
    keep their storages alive). An output that lives in one of its operator's inputs' storages (a view
    such as the `aten::t` of every `nn.Linear` weight, or an in-place result) allocated nothing.
    """

    def __init__(self, forbidden: list[str], *, track_memory: bool = False):
        super().__init__()
        self._is_forbidden = forbids(forbidden)
        self.track_memory = track_memory
        self.counts: Counter[str] = Counter()
        self.forbidden_calls: list[str] = []
        self.live_bytes = 0
        self.peak_bytes = 0
        self._sizes: dict[int, int] = {}  # bytes of each followed storage, by its address
        self._operators: dict[object, _Operator] = {}  # what the watch needs of each operator seen, by overload

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # torch would wrap __torch_dispatch__ in dynamo's disable guard, a cost on every operator the watch sees;
        # nothing here is ever compiled.
        return False

    def reset_peak(self) -> None:
        self.peak_bytes = self.live_bytes

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        known = self._operators.get(func)
        if known is None:
            known = self._operators[func] = _Operator(func, self._is_forbidden)
        self.counts[known.name] += 1
        if known.forbidden:
            if known.name not in self.forbidden_calls:
                self.forbidden_calls.append(known.name)
            raise RuntimeError(f"{known.name} is forbidden in this problem")
        result = func(*args, **(kwargs or {}))
        if self.track_memory:
            self._follow(result, (args, kwargs) if known.aliases else None)
        return result

    def _follow(self, result, operands) -> None:
        # A storage that existed before tracking began is not followed, yet an operator that returns a view or
        # writes in place can reach it through its operands: their storages are what must not be counted again.
        # Any other operator's outputs are new (its schema says so), and so is a view's of a followed storage:
        # the operands are walked only for an output in neither case.
        borrowed = None
        allocated = 0
        for storage in _storages(result):
            key, size = storage._cdata, storage.nbytes()
            if key in self._sizes:
                # resize_ and out= arguments grow a followed storage in place: the growth is an allocation.
                allocated += max(0, size - self._sizes[key])
                self._sizes[key] = max(size, self._sizes[key])
                continue
            if borrowed is None:
                borrowed = {operand._cdata for operand in _storages(operands)} if operands is not None else ()
            if key not in borrowed:
                self._sizes[key] = size
                allocated += size
                weakref.finalize(storage, self._released, key)
        self.live_bytes += allocated
        self.peak_bytes = max(self.peak_bytes, self.live_bytes)

    def _released(self, key: int) -> None:
        self.live_bytes -= self._sizes.pop(key, 0)


def _storages(tree) -> list[torch.UntypedStorage]:
    """The storages of the tensors (and bare storages, as `aten::set_` takes) in an operator's operands or
    results: nested tuples (named ones included), lists and dicts, all that an operator's schema allows.

    Walked here rather than with torch's pytree, which costs several times more per operator, and whose
    registry of container types a submission could extend.
    """
    found = []
    pending = [tree]
    while pending:
        value = pending.pop()
        if isinstance(value, torch.Tensor):
            try:
                found.append(value.untyped_storage())
            except (RuntimeError, NotImplementedError):
                continue
        elif isinstance(value, (tuple, list)):
            pending.extend(value)
        elif isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, torch.UntypedStorage):
            found.append(value)
    return found


_GENUINE_DISPATCH = OperatorWatch.__torch_dispatch__
_GENUINE_FOLLOW = OperatorWatch._follow


def tampering(watch: OperatorWatch) -> list[str]:
    """What the submission visibly did to the watch while it ran (empty when nothing)."""
    found = []
    if _get_current_dispatch_mode() is not watch:
        found.append("removed the judge's operator watch from the dispatch stack")
    if type(watch) is not OperatorWatch or OperatorWatch.__torch_dispatch__ is not _GENUINE_DISPATCH \
            or OperatorWatch._follow is not _GENUINE_FOLLOW or vars(watch).get("__torch_dispatch__"):
        found.append("replaced the judge's operator watch")
    return found


def _libc():
    try:
        libc = ctypes.CDLL(None)
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _libc()


def allocator_for(checked: bool) -> None:
    """Set glibc's allocator for the next request: exact for a checked call, fast for timed ones.

    The judge reads the process's resident set from outside and holds its growth against the tracked
    tensors. glibc's default raises its mmap threshold as blocks are freed, then serves later ones from a
    heap it keeps, whose holes a call's differently sized tensors can leave unfilled: a correct
    checkpointed stack then grows its resident set by several times its live tensors. Returning every
    freed block keeps the resident set at what is live, but each new block's pages then fault in afresh,
    which costs timed calls up to 1.7 times their time; so only checked calls pay it.
    """
    if _LIBC is None:
        return
    mmap_bytes = EXACT_MMAP_BYTES if checked else FAST_MMAP_BYTES
    _LIBC.mallopt(M_MMAP_THRESHOLD, mmap_bytes)
    _LIBC.mallopt(M_TRIM_THRESHOLD, mmap_bytes if checked else 2 * mmap_bytes)


def release_free_memory() -> None:
    """Hand back to the kernel the free pages glibc's heap holds, so what one request freed does not stay
    resident into the next."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


class Stopwatch:
    """Times one call: on the CPU, the calling thread's CPU time; on CUDA, events around a device-wide
    synchronize.

    CPU time rather than the wall clock, because the judge shares its cores and time spent descheduled is
    not the submission's. The thread's clock, because the process's is tick-grained (4 ms) once several
    threads exist; work handed to other threads is caught by the judge's outside view of the sandbox's CPU
    time instead.
    """

    def __init__(self, device: torch.device, flush_bytes: int = 256 << 20):
        self.device = device
        self._flush = None
        if device.type == "cuda":
            # Larger than any current GPU's L2, so each timed call starts with a cold cache.
            self._flush = torch.empty(flush_bytes, dtype=torch.uint8, device=device)

    def time_ns(self, call):
        """(result of call(), nanoseconds it took)."""
        if self._flush is None:
            started = thread_clock_ns()
            result = call()
            return result, thread_clock_ns() - started
        self._flush.zero_()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        result = call()
        # Work the call left on other streams or threads counts: wait for the whole device first.
        torch.cuda.synchronize()
        end.record()
        end.synchronize()
        return result, int(start.elapsed_time(end) * 1e6)
