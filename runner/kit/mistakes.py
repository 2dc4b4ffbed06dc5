"""Classic mistakes, named when a wrong output reproduces one.

A package declares its classic mistakes in problem.toml's `[[mistakes]]`: a solution file of its own (run here
in float64, through the same driver as the reference), or a function of spec.py with keywords that describe
the mistake. A wrong output is called a mistake only when it is that mistake's output and not the truth's, by
one rule for every kind (`reproduces`).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Iterator

import torch

from runner.verdict import with_why

from .api import Package, Params, Table, Tensors
from .truth import load_module

# How close to a classic mistake's output a wrong output must be to be called that mistake: within this many
# tolerances, or this share of its distance from the truth; and in any case within NEARER of that distance, so
# that a wrong output a few tolerances from the truth is not called every mistake that lands as near it.
MISTAKE_TOLERANCES, MISTAKE_SHARE, NEARER = 4.0, 0.01, 0.5
# The keys of a `[[mistakes]]` entry: `with` and `when` are the problem's own keywords and params.
MISTAKES_TABLE: Table = {"solution": None, "says": None, "spec": None, "with": None, "when": None}


@dataclass(frozen=True)
class Mistake:
    """One `[[mistakes]]` entry: what it `says`, and the solution file or spec.py function that makes it."""

    says: str
    solution: ModuleType | None = None
    spec: str | None = None
    keywords: dict[str, Any] = field(default_factory=dict)  # the spec function's keywords (`with`)
    when: dict[str, Any] = field(default_factory=dict)  # the params a test must have for it to apply

    def applies(self, params: Params) -> bool:
        return all(params.get(key) == value for key, value in self.when.items())


def load_mistakes(package: Package) -> list[Mistake]:
    """The package's `[[mistakes]]`, each solution file imported here under a name of the package's version."""
    prefix = f"judge_kit_{package.slug.replace('-', '_')}_{package.version[:12]}_mistake"
    return [Mistake(entry["says"], solution=load_module(package.path / entry["solution"], f"{prefix}_{index}"))
            if "solution" in entry else
            Mistake(entry["says"], spec=entry["spec"], keywords=dict(entry.get("with", {})), when=dict(entry.get("when", {})))
            for index, entry in enumerate(package.mistakes)]


def same(a: torch.Tensor, b: torch.Tensor, allowed: float) -> bool:
    """Equal within allowed where both are finite, and non-finite (inf of one sign, or NaN) at the same places."""
    a, b = a.to(torch.float64), b.to(torch.float64)
    finite = torch.isfinite(a)
    if not torch.equal(finite, torch.isfinite(b)) or not torch.equal(a[~finite].nan_to_num(), b[~finite].nan_to_num()):
        return False
    return bool(((a - b)[finite].abs() <= allowed).all())


def reproduces(got: torch.Tensor, candidate: torch.Tensor | None, truth: torch.Tensor, allowed: float) -> bool:
    """Whether got is a classic mistake's output (candidate) and not the truth: candidate is off the truth by more
    than allowed, and got is within MISTAKE_TOLERANCES times allowed of it, or MISTAKE_SHARE of got's own
    distance from the truth, and within NEARER of that distance (nearer the mistake than the truth). Integer and
    bool outputs must equal the candidate exactly."""
    if candidate is None or candidate.shape != truth.shape or got.shape != truth.shape:
        return False
    if not got.is_floating_point():
        return candidate.dtype == got.dtype and not torch.equal(candidate, truth) and torch.equal(candidate, got)
    got64 = got.to(torch.float64)
    off_by = (got64 - truth).abs().nan_to_num(nan=torch.inf).max().item() if got.numel() else 0.0
    close = max(MISTAKE_TOLERANCES * allowed, MISTAKE_SHARE * off_by if off_by < torch.inf else 0.0)
    return not same(candidate, truth, allowed) and same(got64, candidate, min(close, NEARER * off_by))


def agree(got: Tensors, outputs: Tensors, truth: Tensors, allowed: dict[str, float], names: list[str]) -> bool:
    """Whether a mistake's outputs are got's at each of names that both give (and allowed has): right where got
    is right (within allowed of the truth), and off the truth as got is where got is not (reproduces)."""
    return all(outputs[n].shape == got[n].shape
               and (same(outputs[n], truth[n], allowed[n]) if same(got[n], truth[n], allowed[n])
                    else reproduces(got[n], outputs[n], truth[n], allowed[n]))
               for n in names if n in allowed and outputs.get(n) is not None)


# How many searches of every classic mistake may name none before diagnosed_once() stops searching.
SEARCHES_IN_VAIN = 2


@dataclass
class _Diagnoses:
    named: set[str] = field(default_factory=set)
    in_vain: int = 0


_DIAGNOSES: ContextVar[_Diagnoses | None] = ContextVar("diagnoses", default=None)


@contextmanager
def diagnosed_once() -> Iterator[None]:
    """Within (one run over a judgement's tests): once a test has named a classic mistake, a later test looks
    for the mistakes named already and no other; after SEARCHES_IN_VAIN searches that named none, none is
    looked for. A later test then names no mistake rather than search again: test after test, the search was
    most of a wrong submission's judging time. Verdicts and every test's status are the same either way."""
    token = _DIAGNOSES.set(_Diagnoses())
    try:
        yield
    finally:
        _DIAGNOSES.reset(token)


def searching() -> bool:
    """Whether any mistake is still looked for."""
    diagnoses = _DIAGNOSES.get()
    return diagnoses is None or bool(diagnoses.named) or diagnoses.in_vain < SEARCHES_IN_VAIN


def looked_for(says: str) -> bool:
    """Whether the mistake these words name is still looked for (outside diagnosed_once(), every one)."""
    diagnoses = _DIAGNOSES.get()
    if diagnoses is not None and diagnoses.named:
        return says in diagnoses.named
    return searching()


def searched_in_vain() -> None:
    """Note a search that went through every mistake looked for and named none."""
    diagnoses = _DIAGNOSES.get()
    if diagnoses is not None:
        diagnoses.in_vain += 1


def remembered(says: str) -> str:
    """says, noted as a mistake named."""
    diagnoses = _DIAGNOSES.get()
    if diagnoses is not None:
        diagnoses.named.add(says)
    return says


def exactly(says: str, lead: str = "This is exactly what") -> str:
    """The words that name a classic mistake an output reproduces: "<lead> <the mistake> gives.", with the rule it
    breaks (what the problem's words say after the first ": ") as the failure's why."""
    mistake, why = _rule_apart(says)
    return with_why(f"{lead} {mistake}.", why)


def why_after_colon(says: str) -> str:
    """A problem's words as a message says them ("it is ...", "exp overflows ..."), what comes after their first
    ": " (the rule, or the fix) kept for the failure's why."""
    mistake, why = _rule_apart(says)
    return with_why(mistake, why)


def _rule_apart(says: str) -> tuple[str, str]:
    """A mistake's words as (what it is, the rule it breaks as a sentence); the rule empty where none is said."""
    mistake, colon, rule = says.partition(": ")
    return (mistake, f"{rule[:1].upper()}{rule[1:]}{'' if rule.endswith('.') else '.'}") if colon else (says, "")


__all__ = ["MISTAKES_TABLE", "MISTAKE_SHARE", "MISTAKE_TOLERANCES", "Mistake", "NEARER", "agree", "diagnosed_once",
           "exactly", "load_mistakes", "looked_for", "remembered", "reproduces", "same", "searched_in_vain",
           "searching", "why_after_colon"]
