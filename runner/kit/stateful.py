"""The stateful kind: the package's own driver makes the calls (an object built, then stepped, queried or
updated), and the kit judges every output it reports by value, in the driver's order.

The problem writes `driver.py` (in the sandbox: how the object is driven, reporting each step's results as
named tensors) and `spec.py` (trusted: the inputs, and what its messages add). The truth is the reference run
here in float64 through the same driver (or spec.truth); each output is judged as values.ValueChecker judges
one, the first wrong one fails the test, and a classic mistake is named only when its solution reproduces
every output up to the wrong one.
"""

from __future__ import annotations

from typing import Any

from runner import compare

from .api import Package, Params, Tensors
from .mistakes import exactly, reproduces, same
from .truth import load_module
from .values import ValueChecker


class StatefulChecker(ValueChecker):
    """The stateful kind's checker."""

    def __init__(self, package: Package):
        super().__init__(package)
        self.driver = load_module(package.path / "driver.py",
                                  f"judge_kit_{package.slug.replace('-', '_')}_{package.version[:12]}_driver")

    def run(self, solution, params: Params, inputs: Tensors, ctx: Any) -> Tensors:
        return self.driver.run(solution, params, inputs, ctx)

    def describe(self, params: Params, inputs: Tensors) -> str:
        own = self.own.get("describe")
        return own(params, inputs) if own else ""

    def check(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        truth = self.truth(params, inputs)
        head = self.describe(params, inputs)
        head = f"{head}: " if head else ""
        for name in expected:
            message = compare.layout(name, got.get(name), expected[name]) or \
                self.value_problem(name, got[name], expected[name], truth[name], inputs)
            if message:
                return f"{head}{message}.{self.diagnosis(name, params, inputs, got, expected, truth)}"
        own = self.own.get("check")
        return own(params, inputs, got, truth) if own else None

    def named_mistake(self, name: str, params: Params, inputs: Tensors, got: Tensors, expected: Tensors,
                      truth: Tensors) -> str:
        """The first classic mistake whose outputs got reproduces: at `name`, the first wrong output, and at
        every output before it, where got was right and so must the mistake's be."""
        before = list(expected)[:list(expected).index(name)]
        if any(got.get(n) is None or got[n].shape != truth[n].shape for n in [*before, name]):
            return ""
        allowed = {n: self.allowed(got[n], expected[n], truth[n], inputs) for n in [*before, name]}
        for says, outputs in self.candidates(params, inputs):
            if reproduces(got[name], outputs.get(name), truth[name], allowed[name]) and all(
                    outputs.get(n) is not None and outputs[n].shape == got[n].shape
                    and same(got[n], outputs[n], 4 * allowed[n]) for n in before):
                return exactly(says)
        return ""


__all__ = ["StatefulChecker"]
