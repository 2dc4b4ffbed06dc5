"""Each rank's report (kit_ranks' observer, runner/kit/sandbox_ranks.py) read on the trusted side as hostile input.

The report's figures are the submission's to forge, so a report can fail a test and never pass one: every field
is checked against what the observer writes, and one that is not (or a field a declared rule needs that is
missing) makes the report malformed. Names in it are cut short and never trusted to be an operator's or a
tensor's: a message shows an operator's name only when this torch registers it.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field

import torch
import torch.distributed  # noqa: F401  (registers the collective operators known_collectives lists)

from .sandbox_ranks import NAMESPACES

MAX_REPORT_BYTES = 1 << 20
MAX_ENTRIES = 10_000
# Operators of the collective namespaces that move no data: waiting on a functional collective's result.
BOOKKEEPING = {"_c10d_functional::wait_tensor", "_c10d_functional::_wrap_tensor_autograd", "c10d::check_for_nan"}
# Each collective operator this torch registers, by the family a problem's rules name it by.
FAMILIES = {
    "all_reduce": {"c10d::allreduce_", "c10d::allreduce_coalesced_", "_c10d_functional::all_reduce",
                   "_c10d_functional::all_reduce_", "_c10d_functional::all_reduce_coalesced",
                   "_c10d_functional::all_reduce_coalesced_"},
    "all_gather": {"c10d::_allgather_base_", "c10d::allgather_", "c10d::allgather_coalesced_",
                   "c10d::allgather_into_tensor_coalesced_", "_c10d_functional::all_gather_into_tensor",
                   "_c10d_functional::all_gather_into_tensor_coalesced", "_c10d_functional::all_gather_into_tensor_out",
                   "_c10d_functional_autograd::all_gather_into_tensor"},
    "reduce_scatter": {"c10d::_reduce_scatter_base_", "c10d::reduce_scatter_", "c10d::reduce_scatter_tensor_coalesced_",
                       "_c10d_functional::reduce_scatter_tensor", "_c10d_functional::reduce_scatter_tensor_coalesced",
                       "_c10d_functional::reduce_scatter_tensor_out",
                       "_c10d_functional_autograd::reduce_scatter_tensor"},
    "all_to_all": {"c10d::alltoall_", "c10d::alltoall_base_", "_c10d_functional::all_to_all_single",
                   "_c10d_functional_autograd::all_to_all_single", "_dtensor::shard_dim_alltoall"},
    "broadcast": {"c10d::broadcast_", "_c10d_functional::broadcast", "_c10d_functional::broadcast_"},
    "send": {"c10d::send", "_c10d_functional::isend"},
    "recv": {"c10d::recv_", "c10d::recv_any_source_", "_c10d_functional::irecv"},
    "batch_p2p": {"_c10d_functional::batch_p2p_ops"},
    "reduce": {"c10d::reduce_"},
    "gather": {"c10d::gather_"},
    "scatter": {"c10d::scatter_"},
    "barrier": {"c10d::barrier", "c10d::monitored_barrier_"},
}


class Malformed(Exception):
    """A rank's report is not what the kit's observer writes."""


@dataclass(frozen=True)
class Collective:
    """One operator a phase issued, summed over its calls: its name (without the overload) and family (None for
    one that moves no data; an operator of no family is its own), its calls, and the elements and bytes of
    each call's first operand."""

    operator: str
    calls: int
    elements: int
    bytes: int

    @property
    def family(self) -> str | None:
        return family(self.operator)


@dataclass(frozen=True)
class RankReport:
    """One rank's report, validated: what its driver observed, in the driver's terms. A field the test's rules
    do not read keeps its default."""

    phases: dict[str, list[Collective]] = field(default_factory=dict)
    held_bytes: int = 0  # of every storage the module (or what the driver watched) keeps
    # What the rank's resident memory grew by over the same span, by the kernel's count (RssAnon), less the
    # driver's own tensors: NumPy arrays, globals and frozen objects count like tensors.
    held_resident: int = 0
    held_given: list[str] = field(default_factory=list)  # the given tensors whose storage it keeps
    # The largest storages kept: (where it holds one, its bytes, the given tensor it is or None).
    largest: list[tuple] = field(default_factory=list)
    alive: list[str] = field(default_factory=list)  # the given tensors whose storage outlived the caller's references
    parameters: int = 0  # tensors in module.parameters() after set-up
    refused: str | None = None  # where a refusal is expected: the type of the exception set-up raised
    timed_out: bool = False  # whether a collective timed out on this rank

    def calls(self, kind: str) -> int:
        """The calls of a family in every phase."""
        return sum(seen.calls for entries in self.phases.values() for seen in entries if seen.family == kind)

    def moved(self, kind: str, unit: str = "bytes") -> int:
        """The elements or bytes the calls of a family moved in every phase."""
        return sum(getattr(seen, unit) for entries in self.phases.values() for seen in entries if seen.family == kind)


@dataclass(frozen=True)
class Expected:
    """What a test's rules read of every rank's report: the phases, exactly; the holdings (the names of the
    tensors passed to set-up, None where no holdings are judged); the parameters; a timeout; or, where set-up
    must raise, only whether it did."""

    phases: frozenset[str] = frozenset()
    given: frozenset[str] | None = None
    parameters: bool = False
    timeouts: bool = False
    refusal: bool = False

    @property
    def anything(self) -> bool:
        return bool(self.phases) or self.given is not None or self.parameters or self.timeouts or self.refusal


def read_reports(got: dict[str, torch.Tensor], world: int, expected: Expected,
                 name: str = "observed") -> dict[int, RankReport] | str:
    """Every rank's report `<name>@<rank>`, validated; or the message that fails the test on a malformed one."""
    reports = {}
    for rank in range(world):
        try:
            reports[rank] = read_report(got.get(f"{name}@{rank}"), expected)
        except Malformed as error:
            return (f"rank {rank} of {world}: the judge's record of what this rank observed came back malformed "
                    f"({error}); the submission changed the judge's driver")
    return reports


def read_report(tensor: torch.Tensor | None, expected: Expected) -> RankReport:
    """The report a rank's driver sent, checked field by field; Malformed if any is not as the observer writes it."""
    if tensor is None or tensor.dtype != torch.uint8 or tensor.dim() != 1 or tensor.numel() > MAX_REPORT_BYTES:
        raise Malformed("missing, or not a byte string of a bounded size")
    try:
        report = json.loads(tensor.contiguous().numpy().tobytes().decode())
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Malformed("not JSON") from None
    if not isinstance(report, dict):
        raise Malformed("not an object")
    if expected.refusal:
        refused = report.get("refused")
        if refused is not None and not isinstance(refused, str):
            raise Malformed("refused is neither an exception's name nor null")
        return RankReport(refused=_text(refused, "refused") if refused else None)
    seen = report.get("phases")
    if not isinstance(seen, dict) or set(seen) != expected.phases:
        raise Malformed("the phases are not those the driver runs")
    found = {"phases": {phase: [Collective(_text(operator, "an operator").rsplit(".", 1)[0],
                                           _count(calls, "a call count"), _count(elements, "elements"),
                                           _count(size, "bytes"))
                                for operator, calls, elements, size in _entries(entries, phase, 4)]
                        for phase, entries in seen.items()}}
    if expected.parameters:
        found["parameters"] = _count(report.get("parameters"), "parameters")
    if expected.timeouts:
        if not isinstance(report.get("timed_out"), bool):
            raise Malformed("timed_out is not a flag")
        found["timed_out"] = report["timed_out"]
    if expected.given is not None:
        found.update(_holdings(report, expected.given))
    return RankReport(**found)


def _holdings(report: dict, given: frozenset[str]) -> dict:
    held = report.get("held")
    if not isinstance(held, dict):
        raise Malformed("held is not an object")
    largest = [(_text(holder, "a holder"), _count(size, "a held size"), _given(name, given, "a held storage", True))
               for holder, size, name in _entries(held.get("largest"), "the largest held", 3)]
    return {"held_bytes": _count(held.get("bytes"), "held bytes"),
            "held_resident": _count(held.get("resident"), "resident bytes"), "largest": largest,
            "held_given": _names(held.get("given"), given, "held given"),
            "alive": _names(report.get("alive"), given, "alive")}


def _entries(value, what, width=None):
    if not isinstance(value, list) or len(value) > MAX_ENTRIES or (width is not None and not all(
            isinstance(item, list) and len(item) == width for item in value)):
        raise Malformed(f"{what} is not a list of the observer's entries")
    return value


def _count(value, what):
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 48:
        raise Malformed(f"{what} is not a count")
    return value


def _text(value, what):
    if not isinstance(value, str):
        raise Malformed(f"{what} is not a name")
    return value[:120]


def _given(value, given, what, may_be_none=False):
    if value not in given and not (may_be_none and value is None):
        raise Malformed(f"{what} names no tensor passed to set-up")
    return value


def _names(value, given, what):
    return sorted({_given(name, given, what) for name in _entries(value, what)})


@functools.cache
def known_collectives() -> frozenset[str]:
    """The collective operators this process's torch registers, by their names without an overload."""
    return frozenset(name for name in torch._C._dispatch_get_all_op_names() if name.split("::")[0] in NAMESPACES)


def family(operator: str) -> str | None:
    """The family of an operator (named without its overload), None for one that moves no data; an operator of
    no family is its own."""
    if operator in BOOKKEEPING:
        return None
    return next((name for name, members in FAMILIES.items() if operator in members), operator)


__all__ = ["BOOKKEEPING", "FAMILIES", "MAX_ENTRIES", "MAX_REPORT_BYTES", "Collective", "Expected", "Malformed",
           "RankReport", "family", "known_collectives", "read_report", "read_reports"]
