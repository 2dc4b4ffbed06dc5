"""The sampler kind: a problem judged by the distribution of what the submission draws.

The problem writes `driver.py` (in the sandbox: the submission's draws, made with `kit_sampler.draw` from a
generator the test seeds, reported as tensors of samples) and `spec.py` (trusted): the inputs, the law each
set of draws must follow (float64, computed here from the inputs), which samples of the reports make each set,
and how a classic mistake's solution file gives the laws it draws from. problem.toml states the rate at which
each statistical test rejects a correct sampler (`[sampler] false_rejection`).

The kit judges every report present and of the reference's layout, the draws of a test that calls twice
(`twice`) equal, each sample within its law's categories, and then each set of draws, in the order of the
laws, by one rule: a category of probability 0 drawn fails, the counts must pass a chi-square test (cells
expected fewer than five times pooled), and an ordinal law's mean a z-test, each at the stated rate. A classic
mistake is named when its law fits every set of draws it has a law for, the rejected one among them.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from statistics import NormalDist
from types import ModuleType
from typing import Any

import torch

from runner import compare

from . import api
from .api import Hook, KitError, Package, Params, Table, Tensors
from .checks import TOO_GOOD, chi_square, fit, too_good
from .mistakes import MISTAKES_TABLE, exactly, remembered
from .sandbox_sampler import AGAIN, OTHER_SEED
from .truth import float64
from .values import ValueChecker

LAWS = Hook("laws", ("params", "inputs"), "the law (kit.Law, float64) each set of draws must follow, by the words "
            "that name the set in a message, in the order they are judged", required=True)
DRAWS = Hook("draws", ("params", "inputs", "got"), "each law's draws, by the law's name: integer samples, each a "
             "category's index, read from the driver's reports", required=True)
LAW_OF = Hook("law_of", ("solution", "params", "inputs"), "the laws a [[mistakes]] solution file draws from, by "
              "name (probabilities, float64)")
SAMPLER_HOOKS = (api.INPUTS, LAWS, DRAWS, LAW_OF, api.DESCRIBE, api.MISTAKES, api.CHECK, api.MEMORY_LIMIT)
# problem.toml's tables a sampler problem reads: its false-rejection rate and its classic mistakes (no
# tolerance: its draws are judged by their distribution, not within one).
SAMPLER_TABLES: Table = {"sampler": {"false_rejection": None}, "mistakes": MISTAKES_TABLE}
# The variance below which an ordinal law's mean is as good as fixed: its histogram alone decides.
FIXED_MEAN_VARIANCE = 1e-9


@dataclass(frozen=True)
class Law:
    """The distribution one set of draws must follow, over categories 0 .. len(probabilities) - 1."""

    probabilities: torch.Tensor  # float64; normalised by the kit
    what: str = "category"  # a category's name in messages: "token", "accepted count"
    ordinal: bool = False  # each category's index is the value drawn, so the mean is tested too
    draws: int | None = None  # how many draws the test makes of it, where the test fixes that (see powerless)

    def over(self, probabilities: torch.Tensor | Law) -> Law:
        """This law's categories with other probabilities (a classic mistake's)."""
        return dataclasses.replace(self, probabilities=getattr(probabilities, "probabilities", probabilities))


class SamplerChecker(ValueChecker):
    """The sampler kind's checker: spec.py's laws and draws, judged at problem.toml's false-rejection rate."""

    hooks = SAMPLER_HOOKS

    def __init__(self, package: Package):
        super().__init__(package)
        rate = package.declared.get("sampler", {}).get("false_rejection")
        if not isinstance(rate, float) or not 0 < rate < 1:
            raise KitError(f"{package.slug}/problem.toml must state [sampler] false_rejection, the chance (0 to 1) "
                           "that each statistical test rejects a correct sampler")
        self.false_rejection = rate
        if "law_of" not in self.own and any(mistake.solution for mistake in self.mistakes):
            raise KitError(f"{package.slug}/spec.py must define {LAW_OF.signature()} for its [[mistakes]] "
                           f"solution files: {LAW_OF.doc}")

    def inputs(self, params: Params, generator: torch.Generator) -> Tensors:
        """spec.inputs's tensors, and last the `seed` of the generator the driver hands the submission."""
        return {**super().inputs(params, generator), "seed": torch.randint(0, 2 ** 62, (1,), generator=generator)}

    def prepare(self, params: Params, inputs: Tensors) -> None:
        return None  # a sampler's laws cost little next to counting its draws: check computes them

    def truth(self, params: Params, inputs: Tensors) -> dict[str, Law]:
        """spec.laws on the inputs cast to float64, each a Law (a tensor of probabilities is a Law of them)."""
        return {name: law if isinstance(law, Law) else Law(law)
                for name, law in self.own["laws"](params, float64(inputs)).items()}

    def run(self, solution: ModuleType, params: Params, inputs: Tensors, ctx: Any) -> Tensors:
        """A classic mistake's laws, by spec.law_of."""
        return self.own["law_of"](solution, params, inputs)

    def check(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        head = self.own["describe"](params, inputs) if "describe" in self.own else ""
        for name in expected:
            message = compare.layout(name, got.get(name), expected[name])
            if message:
                return compare.headed(head, message)
        for name in expected:
            if name.endswith(AGAIN) and not torch.equal(got[name], got[name.removesuffix(AGAIN)]):
                return compare.headed(head, f"two calls with generators seeded alike returned different "
                                     f"{name.removesuffix(AGAIN)}: draw every random number from `generator` "
                                     "(torch.rand(..., generator=generator)), never from torch's global generator")
        laws, drawn = self.truth(params, inputs), self.own["draws"](params, inputs, got)
        outside = {name: _outside(drawn[name], len(law.probabilities), law.what) for name, law in laws.items()}
        counts = {name: None if outside[name] else
                  torch.bincount(drawn[name].reshape(-1).long(), minlength=len(law.probabilities))
                  for name, law in laws.items()}
        for name, law in laws.items():
            message = outside[name] or self.rejection(counts[name], law)
            if message:
                return compare.headed(head, name, message) + self.named(name, params, inputs, laws, counts)
        message = self.too_regular(laws, counts) or self.seed_ignored(expected, got, laws, counts)
        if message:
            return compare.headed(head, message)
        own = self.own.get("check")
        return own(params, inputs, got, laws) if own else None

    def too_regular(self, laws: dict[str, Law], counts: dict[str, torch.Tensor | None]) -> str | None:
        """Why the test's draws, its laws together, fit better than random draws do at the stated rate (a quota
        or a low-discrepancy sequence spread over many rows, each alone too small to tell), or None. The laws are
        those whose draws the test fixes (Law.draws) where it fixes any: draws of a law conditioned on others
        (the tokens after i accepted drafts) are scattered by the conditioning and would only dilute the sum."""
        fixed = any(law.draws for law in laws.values())
        fits = [fit(counts[name], law.probabilities) for name, law in laws.items()
                if counts[name] is not None and counts[name].any() and (law.draws or not fixed)]
        chance = too_good(fits)
        if chance >= self.false_rejection:
            return None
        freedom = sum(f.freedom for f in fits)
        return TOO_GOOD.format(detail=f"{len(fits)} sets of draws together, chi-square "
                               f"{sum(f.statistic for f in fits):.3g} on {freedom} degrees of freedom, rejected "
                               f"below {self.false_rejection:g}" if compare.reveals_values()
                               else "a hidden test: its values are not shown")

    def seed_ignored(self, expected: Tensors, got: Tensors, laws: dict[str, Law],
                     counts: dict[str, torch.Tensor | None]) -> str | None:
        """Why a call with the generator seeded otherwise returned the very same draws, every output of it, where
        random draws would all repeat with less than the stated chance (the product of each draw's chance of
        repeating), or None. One output alone may be fixed by the inputs (no draft accepted where the supports
        are disjoint), so only the whole call repeating counts."""
        repeated = [name.removesuffix(OTHER_SEED) for name in expected if name.endswith(OTHER_SEED)]
        if not repeated or not all(torch.equal(got[name + OTHER_SEED], got[name]) for name in repeated):
            return None
        chance = sum(int(counts[name].sum()) * math.log((law.probabilities / law.probabilities.sum()).square().sum())
                     for name, law in laws.items() if counts[name] is not None)
        if chance >= math.log(self.false_rejection):
            return None
        return (f"a call with the generator seeded otherwise returned the same {', '.join(repeated)}: draw every "
                "random number from `generator`, the one the call is given, not from a generator of your own")

    def powerless(self, params: Params, inputs: Tensors) -> list[str]:
        """What the test cannot tell from a correct sampler, among WRONG_SAMPLERS applied to each law whose draws
        the test fixes (Law.draws), judged by this checker's own rules: a law of several possible categories whose
        draws pool into one cell is never tested, and a wrong sampler every rule lets through is one the test has
        no power against. Each of WRONG_SAMPLERS is deterministic, so a test with `twice` also catches it by the
        call with the generator seeded otherwise, where random draws would repeat with less than the stated
        chance. `runner check` fails a package for either (a test that tests nothing is no pass)."""
        laws = {name: law for name, law in self.truth(params, inputs).items() if law.draws}
        found = [f"{name}: {law.draws} draws pool into one cell, so they are never tested" for name, law in laws.items()
                 if int((law.probabilities > 0).sum()) > 1 and not fit(_quota(law), law.probabilities).freedom]
        repeat = sum(law.draws * math.log((law.probabilities / law.probabilities.sum()).square().sum())
                     for law in laws.values())
        if params.get("twice") and repeat < math.log(self.false_rejection):
            return found
        for sampler, counts_of in WRONG_SAMPLERS.items():
            counts = {name: counts_of(law) for name, law in laws.items()}
            wrong = any(int((law.probabilities > 0).sum()) > 1 for law in laws.values())
            if wrong and not any(self.rejection(counts[name], law) for name, law in laws.items()) \
                    and not self.too_regular(laws, counts):
                found.append(f"no power against {sampler}: its draws pass every check")
        return found

    def rejection(self, counts: torch.Tensor, law: Law) -> str | None:
        """Why counts do not follow law at the stated rate (its mean too, for an ordinal law), or None."""
        if not counts.any():
            return None
        return (law.ordinal and self.mean_rejection(counts, law)) or \
            chi_square(counts, law.probabilities, false_rejection=self.false_rejection, what=law.what)

    def mean_rejection(self, counts: torch.Tensor, law: Law) -> str | None:
        """Why the mean of counts' categories is not the law's, by a two-sided z-test at the stated rate, or None."""
        values = torch.arange(len(counts), dtype=torch.float64)
        probabilities = law.probabilities.to(torch.float64) / law.probabilities.sum()
        mean = (probabilities * values).sum().item()
        variance = (probabilities * (values - mean) ** 2).sum().item()
        if variance <= FIXED_MEAN_VARIANCE:
            return None
        draws = counts.sum().item()
        got = (counts.to(torch.float64) * values).sum().item() / draws
        if abs(got - mean) <= NormalDist().inv_cdf(1 - self.false_rejection / 2) * math.sqrt(variance / draws):
            return None
        shown = (f" is {got:.3f} where the law's is {mean:.3f}" if compare.reveals_values()
                 else " is not the law's (a hidden test: its values are not shown)")
        return f"the mean {law.what}{shown}: a two-sided z-test rejects it at p < {self.false_rejection:g}"

    def named(self, rejected: str, params: Params, inputs: Tensors, laws: dict[str, Law],
              counts: dict[str, torch.Tensor | None]) -> str:
        """The words naming the first classic mistake whose laws fit every set of draws they give a law for,
        the rejected one among them; "" when none does."""
        for says, wrong in self.candidates(params, inputs):
            if rejected in wrong and all(name in laws and counts[name] is not None
                                         and self.rejection(counts[name], laws[name].over(law)) is None
                                         for name, law in wrong.items()):
                return exactly(remembered(says), lead=". These draws are what")
        return ""


def _argmax(law: Law) -> torch.Tensor:
    """Every draw the most probable category (the first of tied ones)."""
    counts = torch.zeros(len(law.probabilities), dtype=torch.int64)
    counts[int(law.probabilities.argmax())] = law.draws
    return counts


def _quota(law: Law) -> torch.Tensor:
    """The expected counts rounded, by largest remainder, to integers that sum to the draws: no chance at all."""
    expected = law.probabilities.double() / law.probabilities.sum() * law.draws
    counts = expected.floor().long()
    counts[(expected - counts).argsort(descending=True)[:law.draws - int(counts.sum())]] += 1
    return counts


def _low_discrepancy(law: Law) -> torch.Tensor:
    """The categories the inverse CDF gives the first draws of the base-2 van der Corput sequence."""
    index, points, scale = torch.arange(1, law.draws + 1), torch.zeros(law.draws, dtype=torch.float64), 0.5
    while bool(index.any()):
        points += (index % 2) * scale
        index, scale = index // 2, scale / 2
    cdf = (law.probabilities.double() / law.probabilities.sum()).cumsum(0)
    drawn = torch.searchsorted(cdf, points, right=True).clamp(max=len(cdf) - 1)
    return torch.bincount(drawn, minlength=len(cdf))


# The wrong samplers every statistical test must reject (powerless): by name, the counts each draws of a law.
WRONG_SAMPLERS = {"argmax": _argmax, "a deterministic quota": _quota, "a low-discrepancy sequence": _low_discrepancy}


def _outside(samples: torch.Tensor, categories: int, what: str) -> str | None:
    """What is wrong when a sample is not one of the law's categories, or None."""
    outside = (samples < 0) | (samples >= categories)
    if not outside.any():
        return None
    if not compare.reveals_values():
        return f"drew a {what} outside [0, {categories}) (a hidden test: its values are not shown)"
    return (f"drew {what} {int(samples[outside][0])}, outside [0, {categories}) ({int(outside.sum())} such draw"
            f"{'s' * (int(outside.sum()) != 1)})")


__all__ = ["DRAWS", "LAWS", "LAW_OF", "SAMPLER_HOOKS", "SAMPLER_TABLES", "WRONG_SAMPLERS", "Law", "SamplerChecker"]
