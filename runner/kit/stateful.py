"""The stateful kind: the package's own driver makes the calls (an object built, then stepped, queried or
updated), and the kit judges every output it reports by value, in the driver's order.

The problem writes `driver.py` (in the sandbox: how the object is driven, reporting each step's results as
named tensors) and `spec.py` (trusted: the inputs, and what its messages add). The truth is the reference run
here in float64 through the same driver (or spec.truth); each output is judged as values.ValueChecker judges
one, or as problem.toml's `[outputs."<name>"]` says (exactly, within a stated atol and rtol, or not at all: a
report only spec.check reads); the first wrong one fails the test. spec.judged may turn every run's reports
(the submission's, the reference's, the truth, a mistake's) into the outputs judged, and spec.call_of names
the call that made one. A classic mistake is named when its outputs reproduce the wrong one and agree with
every one before it that the mistake gives; one that agrees with every later one too is named first.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, fields
from typing import Any

import torch

from runner import compare

from . import checks
from .api import ANY_NAME, Hook, KitError, Package, Params, Table, Tensors
from .mistakes import MISTAKE_TOLERANCES, agree, exactly, remembered, reproduces, same
from .truth import load_module
from .values import SPEC_HOOKS, VALUE_TABLES, ValueChecker

JUDGED = Hook("judged", ("params", "inputs", "reports"),
              "the outputs the kit judges, from what one run of the driver reported (default: the reports)")
CALL_OF = Hook("call_of", ("name", "params", "inputs"), "the call that made output `name`, in the user's words")
STATEFUL_HOOKS = (*SPEC_HOOKS, JUDGED, CALL_OF)


@dataclass(frozen=True)
class Comparison:
    """How one output is judged: problem.toml's `[outputs."<name>"]`, whose name may be a pattern (`out*`)."""

    judged: bool = True  # false: a report for spec.check, not an output judged by value
    exact: bool = False  # equal to the truth, in the output's dtype
    atol: float = 0.0  # with rtol: within atol + rtol * |truth| of the truth, in place of the kit's tolerance
    rtol: float = 0.0

    @property
    def stated(self) -> bool:
        return bool(self.atol or self.rtol)


STATEFUL_TABLES: Table = {**VALUE_TABLES, "outputs": {ANY_NAME: {field.name: None for field in fields(Comparison)}}}


def comparisons(package: Package) -> dict[str, Comparison]:
    """problem.toml's `[outputs]`, by name or pattern, in order; KitError for an entry the kit cannot follow (the
    load refused a key STATEFUL_TABLES does not know)."""
    found = {}
    for pattern, entry in package.declared.get("outputs", {}).items():
        where = f'{package.slug}/problem.toml: [outputs."{pattern}"]'
        if not isinstance(entry, dict):
            raise KitError(f"{where} is a table that sets judged, exact, or atol and rtol")
        flags, numbers = [entry.get(key, False) for key in ("judged", "exact")], \
            [entry.get(key, 0.0) for key in ("atol", "rtol")]
        if not all(isinstance(flag, bool) for flag in flags) or not all(
                type(number) in (int, float) and number >= 0 for number in numbers):
            raise KitError(f"{where}: judged and exact are true or false, atol and rtol numbers >= 0")
        found[pattern] = Comparison(**entry)
        if found[pattern].exact and found[pattern].stated:
            raise KitError(f"{where} is exact or within atol and rtol, not both")
    return found


class StatefulChecker(ValueChecker):
    """The stateful kind's checker."""

    hooks = STATEFUL_HOOKS

    def __init__(self, package: Package):
        super().__init__(package)
        self.driver = load_module(package.path / "driver.py",
                                  f"judge_kit_{package.slug.replace('-', '_')}_{package.version[:12]}_driver")
        self.comparisons = comparisons(package)

    def run(self, solution, params: Params, inputs: Tensors, ctx: Any) -> Tensors:
        return self.driver.run(solution, params, inputs, ctx)

    def comparison(self, name: str) -> Comparison:
        """Output `name`'s entry of `[outputs]`: its own (a name may hold brackets), else the first pattern's."""
        return self.comparisons.get(name) or next((comparison for pattern, comparison in self.comparisons.items()
                                                   if fnmatch.fnmatchcase(name, pattern)), Comparison())

    def judged(self, params: Params, inputs: Tensors, reports: Tensors) -> Tensors:
        """The outputs judged of one run, by spec.judged when it is defined."""
        own = self.own.get("judged")
        return own(params, inputs, dict(reports)) if own else reports

    def head(self, name: str, params: Params, inputs: Tensors) -> str:
        """What leads a message about output `name`: spec.describe's words, then spec.call_of's."""
        words = [self.own[hook](*args) for hook, args in (("describe", (params, inputs)),
                                                          ("call_of", (name, params, inputs))) if hook in self.own]
        words = ", ".join(word for word in words if word)
        return f"{words}: " if words else ""

    def check(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        reports = self.truth(params, inputs)
        got_judged, expected_judged, truth = (self.judged(params, inputs, run) for run in (got, expected, reports))
        for name in expected_judged:
            if not self.comparison(name).judged:
                continue
            message = compare.layout(name, got_judged.get(name), expected_judged[name]) or \
                self.value_problem(name, got_judged[name], expected_judged[name], truth[name], inputs, params)
            if message:
                diagnosis = self.diagnosis(name, params, inputs, got_judged, expected_judged, truth)
                return f"{self.head(name, params, inputs)}{message}.{diagnosis}"
        own = self.own.get("check")
        return own(params, inputs, got, reports) if own else None

    def value_problem(self, name: str, got: torch.Tensor, expected: torch.Tensor, truth: torch.Tensor,
                      inputs: Tensors, params: Params | None = None) -> str | None:
        """As `[outputs]` says: exactly, or within its atol and rtol, of the truth; else as ValueChecker does."""
        comparison = self.comparison(name)
        if comparison.exact:
            return checks.check_exact(name, got, truth.to(got.dtype))
        if comparison.stated:
            return compare.tensors(name, got.to(torch.float64), truth.to(torch.float64), atol=comparison.atol,
                                   rtol=comparison.rtol)
        return super().value_problem(name, got, expected, truth, inputs, params)

    def output_allowance(self, name: str, got: torch.Tensor, expected: torch.Tensor, truth: torch.Tensor,
                         inputs: Tensors, params: Params | None = None) -> float:
        """How far output `name` may be from the truth: 0 when exact, its atol and rtol at the truth's largest
        magnitude when stated, else ValueChecker's tolerance."""
        comparison = self.comparison(name)
        if comparison.exact:
            return 0.0
        if comparison.stated:
            finite = truth[torch.isfinite(truth)] if truth.is_floating_point() else truth
            largest = finite.abs().max().item() if finite.numel() else 0.0
            return comparison.atol + comparison.rtol * largest
        return self.allowed(got, expected, truth, inputs, name, params)

    def named_mistake(self, name: str, params: Params, inputs: Tensors, got: Tensors, expected: Tensors,
                      truth: Tensors) -> str:
        """The classic mistake whose outputs reproduce got's at `name`, the first wrong output (its values, or
        where its shape is wrong, that shape and its values), and at every output before it that the mistake
        gives (where got was right, and so must the mistake be); of those, the first that also gives every
        later output as got did, else the first."""
        judged = [n for n in expected if self.comparison(n).judged]
        at = judged.index(name)
        if got.get(name) is None:
            return ""
        comparable = [n for n in judged if n == name or (got.get(n) is not None and got[n].shape == truth[n].shape)]
        allowed = {n: self.output_allowance(n, got[n], expected[n], truth[n], inputs, params) for n in comparable}
        first = None
        for says, reports in self.candidates(params, inputs):
            outputs = self.judged(params, inputs, reports)
            if not self.reproduced(got[name], outputs.get(name), truth[name], allowed[name]) or \
                    not agree(got, outputs, truth, allowed, judged[:at]):
                continue
            if agree(got, outputs, truth, allowed, judged[at + 1:]):
                return exactly(remembered(says))
            first = first or says
        return exactly(remembered(first)) if first else ""

    @staticmethod
    def reproduced(got: torch.Tensor, candidate: torch.Tensor | None, truth: torch.Tensor, allowed: float) -> bool:
        """Whether a wrong output is a mistake's: as mistakes.reproduces says, or, where got's shape is not the
        truth's, of got's shape and within MISTAKE_TOLERANCES times allowed of it."""
        if got.shape == truth.shape or candidate is None:
            return reproduces(got, candidate, truth, allowed)
        return candidate.shape == got.shape and same(got, candidate, MISTAKE_TOLERANCES * allowed)


__all__ = ["CALL_OF", "JUDGED", "STATEFUL_HOOKS", "STATEFUL_TABLES", "Comparison", "StatefulChecker", "comparisons"]
