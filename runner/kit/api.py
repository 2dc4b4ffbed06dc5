"""The kit's contracts: the data a problem's code handles, what the judge asks of a checker of any kind, the
hooks each kind lets a problem's `spec.py` define, and how the keys a kind reads of problem.toml are declared.

A hook is looked up once, when the package's checker is built (the first judgement of the package's version
in a process: `runner check` builds it for the reference's), and checked against its declaration here (a
required hook that is missing, or one that takes other parameters, is a malformed package), so a typo in a
hook's name or signature fails that judgement as an internal error naming it instead of being silently
ignored. Loading the package (sync_content) does not build the checker; it does refuse a problem.toml key
that the package's kind does not read (refuse_unknown_keys).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

import torch

Params = dict[str, Any]
Tensors = dict[str, torch.Tensor]


class KitError(ValueError):
    """A package that does not meet its kind's contract (a hook missing or of the wrong shape)."""


@runtime_checkable
class Package(Protocol):
    """What a kind reads of a loaded problem package (runner.problems.Problem is one)."""

    slug: str
    path: Path
    version: str
    kind: str
    interface: dict[str, Any]
    tolerance: dict[str, Any]
    mistakes: list[dict[str, Any]]
    declared: dict[str, Any]  # the whole of problem.toml


class Checker(Protocol):
    """What the judge asks of a problem's trusted checker, whatever its kind. Every kind's checker defines every
    method: one with nothing to say returns None."""

    def inputs(self, params: Params, generator: torch.Generator) -> Tensors:
        """CPU tensors for one call, drawn only from generator (seeded per test, per run, per timed call)."""

    def check(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        """None when got (the submission's outputs) is right, else what is wrong, in the problem's terms."""

    def prepare(self, params: Params, inputs: Tensors) -> None:
        """Compute ahead what check needs from the inputs alone (the judge calls it beside the sandboxes)."""

    def memory_limit(self, params: Params, inputs: Tensors) -> tuple[int, str] | None:
        """A bound of the problem's own on a test's peak bytes, and what it is, or None."""

    def check_sent(self, params: Params, sent: dict[int, int]) -> str | None:
        """Distributed problems: None when the bytes each rank sent keep the problem's rule, else why not."""


class CheckerBase:
    """A checker's methods that a kind may have nothing to say in: each says nothing."""

    judges_sent_bytes = False

    def prepare(self, params: Params, inputs: Tensors) -> None:
        return None

    def memory_limit(self, params: Params, inputs: Tensors) -> tuple[int, str] | None:
        return None

    def check_sent(self, params: Params, sent: dict[int, int]) -> str | None:
        return None


@dataclass(frozen=True)
class Hook:
    """One name a problem's spec.py may (or must) define, and the parameters it takes when it is a function."""

    name: str
    parameters: tuple[str, ...] | None  # None: a value, not a function
    doc: str
    required: bool = False

    def signature(self) -> str:
        return self.name if self.parameters is None else f"{self.name}({', '.join(self.parameters)})"


INPUTS = Hook("inputs", ("params", "generator"), "CPU tensors for one call, drawn from generator only", required=True)
TRUTH = Hook("truth", ("params", "inputs"), "the float64 truth of every output (default: the reference, run here)")
DESCRIBE = Hook("describe", ("params", "inputs"), "the call in the user's words, at the head of a failure message")
MISTAKES = Hook("mistakes", ("params", "inputs"), "(says, float64 outputs) of classic mistakes with no solution file")
DIAGNOSE = Hook("diagnose", ("name", "params", "inputs", "got", "truth"), "why output `name` is wrong, when known")
CHECK = Hook("check", ("params", "inputs", "got", "truth"), "the problem's own checks, after the kit's; None when fine")
MEMORY_LIMIT = Hook("memory_limit", ("params", "inputs"), "(bytes, what they are) of a bound of its own, or None")
MAGNITUDE = Hook("magnitude", ("name", "params", "inputs"),
                 "the magnitude output `name`'s rounding scales with where neither the truth's nor an input's says it")
PREPARE = Hook("prepare", ("params", "inputs"), "compute ahead what check needs from the inputs alone")
CHECK_SENT = Hook("check_sent", ("params", "sent"), "None when the bytes each rank sent keep the rule, else why not")


def hooks_of(module: ModuleType, hooks: tuple[Hook, ...], where: str) -> dict[str, Any]:
    """The hooks module defines, by name, each checked against its declaration; KitError naming the first that
    is missing (when required) or does not take its parameters."""
    found = {}
    for hook in hooks:
        value = getattr(module, hook.name, None)
        if value is None:
            if hook.required:
                raise KitError(f"{where} must define {hook.signature()}: {hook.doc}")
            continue
        if hook.parameters is not None:
            problem = _parameters_problem(value, hook)
            if problem:
                raise KitError(f"{where}: {hook.name} {problem}; the kit calls {hook.signature()}")
        found[hook.name] = value
    return found


# The keys a kind reads of a problem.toml table: each key's value is None (a value, or a table of the problem's own
# words or params, read as it is) or the Table of its own keys; a table whose keys are names the problem chooses
# (`[ranks.phases.<phase>]`) has the one key ANY_NAME, whose Table each of its entries follows. An array of
# tables (`[[tests]]`) follows its key's Table entry by entry.
Table = dict[str, "Table | None"]
ANY_NAME = "<name>"
BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def refuse_unknown_keys(declared: dict[str, Any], table: Table, where: str) -> None:
    """KitError naming the first key of declared that table does not know, and the keys it knows: a misspelt key
    would otherwise be ignored, and what it meant to set left at its default. where is what the message calls
    declared: the whole file ("a ranks problem"), or a table's header ("[ranks.holdings]")."""
    for key, value in declared.items():
        if ANY_NAME in table:
            known = table[ANY_NAME]
        elif key in table:
            known = table[key]
        else:
            raise KitError(f"{where} has no key {key!r} (it knows {', '.join(sorted(table))})")
        if known is None:
            continue
        dotted = key if BARE_KEY.match(key) else f'"{key}"'
        header = f"{where.strip('[]')}.{dotted}" if where.startswith("[") else dotted
        for entry in value if isinstance(value, list) else [value]:
            if isinstance(entry, dict):
                refuse_unknown_keys(entry, known, f"[[{header}]]" if isinstance(value, list) else f"[{header}]")


def _parameters_problem(value: Any, hook: Hook) -> str | None:
    if not callable(value):
        return "is not a function"
    try:
        parameters = inspect.signature(value).parameters.values()
    except (TypeError, ValueError):
        return None  # a builtin's signature is not known; the call itself will tell
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if any(p.kind == p.VAR_POSITIONAL for p in parameters):
        return None
    if not len(required) <= len(hook.parameters) <= len(positional):
        return f"takes {len(required)} positional parameters"
    return None


__all__ = ["CHECK", "CHECK_SENT", "DESCRIBE", "DIAGNOSE", "INPUTS", "MAGNITUDE", "MEMORY_LIMIT", "MISTAKES", "PREPARE", "TRUTH",
           "ANY_NAME", "Checker", "CheckerBase", "Hook", "KitError", "Package", "Params", "Table", "Tensors",
           "hooks_of", "refuse_unknown_keys"]
