"""What every kind that compares outputs with a float64 truth shares: the problem's spec.py and reference, the
truth, the tolerance, and a wrong value's diagnosis (spec.diagnose's hint, then the classic mistake it
reproduces).

The truth is the reference run here in float64 by the kind's driver (`run`), unless spec.truth computes it.
Floating outputs are judged within checks.tolerance of it; integer and bool outputs must equal the
reference's.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import torch

from runner.verdict import split_why, with_why

from . import api, checks, memo
from .api import Hook, Package, Params, Table, Tensors
from .mistakes import (MISTAKES_TABLE, agree, exactly, load_mistakes, looked_for, remembered, reproduces,
                       searched_in_vain, searching)
from .truth import load_module, run_in_float64

SPEC_HOOKS = (api.INPUTS, api.TRUTH, api.DESCRIBE, api.MISTAKES, api.DIAGNOSE, api.CHECK, api.MEMORY_LIMIT,
              api.MAGNITUDE)
# The problem.toml tables every kind judged against a float64 truth reads: the tolerance and the classic mistakes.
VALUE_TABLES: Table = {"tolerance": {"reference_multiple": None, "rounding_units": None, "scale_by": None},
                       "mistakes": MISTAKES_TABLE}


class ValueChecker(api.CheckerBase):
    """The checker's shared half for kinds judged by value: spec.py's hooks, the reference and the mistakes,
    loaded once per package version. A kind supplies `run`, the driver the truth and the mistakes are run by."""

    hooks: tuple[Hook, ...] = SPEC_HOOKS
    # Whether the truth may come from the reference run here (a kind whose reference cannot run on this side, a
    # Triton kernel, says no and requires spec.truth).
    runs_reference = True

    def __init__(self, package: Package):
        self.package = package
        prefix = f"judge_kit_{package.slug.replace('-', '_')}_{package.version[:12]}"
        self.spec = load_module(package.path / "spec.py", f"{prefix}_spec")
        self.own = api.hooks_of(self.spec, self.hooks, f"{package.slug}/spec.py")
        self.reference = load_module(package.path / "reference.py", f"{prefix}_reference") \
            if self.runs_reference else None
        self.mistakes = load_mistakes(package)
        self.scale_by = list(package.tolerance.get("scale_by", []))
        self.allowance = {name: value for name, value in package.tolerance.items() if name != "scale_by"}

    def run(self, solution: ModuleType, params: Params, inputs: Tensors, ctx: Any) -> Tensors:
        """What the kind's driver gives for solution (the reference, or a mistake's file)."""
        raise NotImplementedError

    def run_in_float64(self, solution: ModuleType, params: Params, inputs: Tensors) -> Tensors:
        return run_in_float64(self.run, solution, params, inputs)

    def inputs(self, params: Params, generator: torch.Generator) -> Tensors:
        return memo.DRAWN_INPUTS.draw(self.own["inputs"], self.spec, params, generator)

    def prepare(self, params: Params, inputs: Tensors) -> None:
        self.truth(params, inputs)

    def memory_limit(self, params: Params, inputs: Tensors) -> tuple[int, str] | None:
        own = self.own.get("memory_limit")
        return own(params, inputs) if own else None

    def truth(self, params: Params, inputs: Tensors) -> Tensors:
        """The float64 truth of every output: spec.truth's, else the reference's run here."""
        own = self.own.get("truth")
        if own:
            return memo.FLOAT64_RUNS.run(own, self.spec, params, inputs, lambda: own(params, inputs))
        return self.run_in_float64(self.reference, params, inputs)

    def allowance_for(self, inputs: Tensors, name: str = "", params: Params | None = None) -> dict[str, float]:
        """The tolerance's settings for output `name` of one call: problem.toml's, and the magnitude its rounding
        scales with, the largest of the inputs scale_by names and of spec.magnitude(name, params, inputs)."""
        scaled = [inputs[each].abs().max().item() for each in self.scale_by if inputs[each].numel()]
        own = self.own.get("magnitude")
        if own is not None and params is not None:
            scaled.append(float(own(name, params, inputs)))
        return {**self.allowance, "magnitude": max([1.0, *scaled])}

    def value_problem(self, name: str, got: torch.Tensor, expected: torch.Tensor, truth: torch.Tensor,
                      inputs: Tensors, params: Params | None = None) -> str | None:
        """Floating outputs against the truth within the tolerance; integer and bool ones exactly."""
        if not expected.is_floating_point():
            return checks.check_exact(name, got, expected)
        return checks.check_close(name, got, expected, truth, **self.allowance_for(inputs, name, params))

    def candidates(self, params: Params, inputs: Tensors) -> Iterator[tuple[str, Tensors]]:
        """(what the mistake is, its float64 outputs) for each classic mistake that applies to the test: the
        `[[mistakes]]` in order, then those spec.mistakes(params, inputs) computes; only those still looked for
        (mistakes.diagnosed_once)."""
        if not searching():
            return
        for mistake in self.mistakes:
            if not mistake.applies(params) or not looked_for(mistake.says):
                continue
            if mistake.solution is None:
                yield mistake.says, self.spec_mistake(mistake, params, inputs)
                continue
            try:
                yield mistake.says, self.run_in_float64(mistake.solution, params, inputs)
            except Exception:  # noqa: BLE001 - a mistake that cannot run on these inputs is not this one
                continue
        if "mistakes" in self.own:
            yield from ((says, outputs) for says, outputs in self.own["mistakes"](params, inputs) if looked_for(says))
        # Reached only where the caller took none of them (it stops at the first that is got's output).
        searched_in_vain()

    def spec_mistake(self, mistake, params: Params, inputs: Tensors) -> Tensors:
        """The float64 outputs of a `[[mistakes]]` entry that names a spec.py function."""
        return getattr(self.spec, mistake.spec)(params, inputs, **mistake.keywords)

    def allowed(self, got: torch.Tensor, expected: torch.Tensor, truth: torch.Tensor, inputs: Tensors,
                name: str = "", params: Params | None = None) -> float:
        """The tolerance output `name`, of got's dtype, is judged within (0 for integer and bool outputs)."""
        if not got.is_floating_point():
            return 0.0
        return checks.tolerance(got.dtype, expected, truth, **self.allowance_for(inputs, name, params))

    def named_mistake(self, name: str, params: Params, inputs: Tensors, got: Tensors, expected: Tensors,
                      truth: Tensors) -> str:
        """The words naming the first classic mistake whose output `name` got reproduces and whose every other
        output of the call got gives too (where got is right, so must the mistake be), or ""."""
        if got.get(name) is None:
            return ""
        others = [n for n in expected if n != name and got.get(n) is not None and n in truth
                  and got[n].shape == truth[n].shape]
        allowed = {n: self.allowed(got[n], expected[n], truth[n], inputs, n, params) for n in [name, *others]}
        for says, outputs in self.candidates(params, inputs):
            if reproduces(got[name], outputs.get(name), truth[name], allowed[name]) and \
                    agree(got, outputs, truth, allowed, others):
                return exactly(remembered(says))
        return ""

    def diagnosis(self, name: str, params: Params, inputs: Tensors, outputs: Tensors, expected: Tensors,
                  truth: Tensors, *notes: str) -> str:
        """Why output `name` is wrong: the kind's notes, spec.diagnose's hint, and the classic mistake it
        reproduces; each note after a space, "" when none. Whys the notes carry (with_why) are joined into one, at
        the end, where the result keeps it apart."""
        notes = [*notes]
        if "diagnose" in self.own:
            notes.append(self.own["diagnose"](name, params, inputs, outputs.get(name), truth))
        notes.append(self.named_mistake(name, params, inputs, outputs, expected, truth))
        parts = [split_why(note) for note in notes if note]
        return with_why("".join(f" {said}" for said, _ in parts), " ".join(why for _, why in parts if why))


__all__ = ["SPEC_HOOKS", "VALUE_TABLES", "ValueChecker"]
