"""The ranks kind: a distributed problem, its ranks processes in a gloo group, judged from their outputs and from
what the kit's observer (kit_ranks) reported on each.

The problem writes `driver.py` (in the sandbox, on kit_ranks: the calls each rank makes and the phases its
observer records), `spec.py` (trusted: the inputs, the float64 truth, the test's steps and what its messages
add, through RANKS_HOOKS) and its rules in problem.toml's `[ranks]` (ranks_rules.py: the collectives each
phase may issue, the bytes a rank may hold and send, a refusal, a timeout). The kit reads every rank's report as
hostile input (ranks_reports.py), applies the rules, judges each step's outputs on every rank against the
truth, and names the classic mistake a wrong value reproduces (`[[mistakes]]` naming spec.py's functions, and
spec.mistakes).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from runner import compare

from . import api, checks
from .api import Hook, KitError, Package, Params, Table, Tensors
from .mistakes import remembered, reproduces, why_after_colon
from .ranks_reports import Expected, RankReport, read_reports
from .ranks_rules import (RANKS_TABLE, collectives_message, given_bytes, groups, holdings_message, parameters_message,
                          place, refusal_expected, refusal_message, sent_message, share_limit, timeout_message)
from .values import VALUE_TABLES, ValueChecker

RANKS_TABLES: Table = {**VALUE_TABLES, "ranks": RANKS_TABLE}


@dataclass(frozen=True)
class RanksStep:
    """One step of a distributed test, judged in order: its outputs by value on every rank (an output named
    `<name>@<rank>` on that rank alone), then the collectives of its phases on every rank by their rules."""

    where: str  # what messages call the step, after the rank ("after step 2"); "" for nothing
    outputs: dict[str, str] = field(default_factory=dict)  # {output: what messages call it}
    phases: dict[str, str | None] = field(default_factory=dict)  # {phase recorded: its [ranks.phases] rule, or None}
    counts: dict[str, int] = field(default_factory=dict)  # figures its rules and words name ("out": elements)
    exact: frozenset[str] = frozenset()  # outputs that must equal their truth exactly: copies, not computations


RANKS_HOOKS = (
    api.INPUTS,
    Hook("truth", ("params", "inputs"), "the float64 truth of every output, `<name>` for every rank's or "
         "`<name>@<rank>` for one rank's", required=True),
    Hook("steps", ("params",), "the test's steps, in order: a list of kit.RanksStep", required=True),
    api.MISTAKES,
    Hook("diagnose", ("name", "rank", "params", "inputs", "got", "truth"),
         "why output `name` of rank is wrong when no rule or classic mistake says, or \"\""),
    Hook("check", ("params", "inputs", "got", "truth", "reports"),
         "the problem's own checks, after the kit's (reports: each rank's kit.RankReport); None when fine"),
    Hook("holdings", ("params", "inputs", "size"), "the bytes a rank of a group of size may hold, where "
         "[ranks.holdings] names no `split` and `whole`"),
    Hook("sent_bounds", ("params", "counted"), "(fewest, most) bytes a rank may send, counted by its calls "
         "(\"calls\") or its process (\"process\"); None where not judged"),
    api.MEMORY_LIMIT,
)


def declared(beside: str | Path) -> dict[str, Any]:
    """problem.toml of the problem folder that holds the file beside (a spec's __file__): its own words.

    Read afresh: a spec reads it once, when the package's version is loaded."""
    return tomllib.loads((Path(beside).resolve().parent / "problem.toml").read_text())


def by_rank(params: Params, compute: Callable[[int, list[int], int], Tensors]) -> Tensors:
    """compute(the group's index, the group, the rank's position in it) for every rank, each output named
    `<name>@<rank>`: a truth or a mistake that differs by rank or group."""
    return {f"{name}@{rank}": tensor for index, group in enumerate(groups(params))
            for position, rank in enumerate(group) for name, tensor in compute(index, group, position).items()}


class RanksChecker(ValueChecker):
    """The ranks kind's checker: reports, then the declared rules and each step's outputs, then spec.check."""

    hooks = RANKS_HOOKS

    def __init__(self, package: Package):
        super().__init__(package)
        self.rules = package.declared.get("ranks", {})
        if any(mistake.solution for mistake in self.mistakes):
            raise KitError(f"{package.slug}: a ranks problem's [[mistakes]] each name a spec.py function; a "
                           "solution runs on ranks, not on the trusted side")
        for name, rule in self.rules.get("phases", {}).items():
            if rule.get("others", "any") != "any":
                raise KitError(f"{package.slug}: [ranks.phases.{name}] others = {rule['others']!r}; the only value is "
                               "\"any\" (every family the rule does not name is refused without it)")
        if "sent" in self.rules and "sent_bounds" not in self.own:
            raise KitError(f"{package.slug}/spec.py must define sent_bounds(params, counted): [ranks.sent] needs it")
        self.judges_sent_bytes = "sent" in self.rules

    def check(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        refusal = self.rules.get("refusal")
        if refusal_expected(refusal, params):
            reports = read_reports(got, params["world_size"], Expected(refusal=True))
            return reports if isinstance(reports, str) else refusal_message(reports, refusal, params)
        steps = self.own["steps"](params)
        holdings = self.rules.get("holdings")
        wanted = Expected(frozenset(phase for step in steps for phase in step.phases),
                          frozenset(given_bytes(holdings, inputs)) if holdings is not None else None,
                          bool(self.rules.get("trainable")), "timeout" in self.rules)
        reports = read_reports(got, params["world_size"], wanted) if wanted.anything else {}
        if isinstance(reports, str):
            return reports
        truth = self.truth(params, inputs)
        message = self.before_steps(params, inputs, reports)
        for step in steps:
            message = message or self.step_message(step, params, inputs, got, expected, truth, reports)
        message = message or self.sent_by_calls(params, reports)
        own = self.own.get("check")
        return message or (own(params, inputs, got, truth, reports) if own else None)

    def check_sent(self, params: Params, sent: dict[int, int]) -> str | None:
        bounds = self.own["sent_bounds"](params, "process")
        return sent_message(sent, bounds, self.rules["sent"], "process", self.facts(params)) if bounds else None

    def facts(self, params: Params, group: list[int] | None = None, step: RanksStep | None = None) -> dict[str, Any]:
        """What the declared words may name: the test's params, `world`, the group's `size`, the step's counts."""
        size = len(group) if group else len(groups(params)[0])
        return {**params, "world": params["world_size"], "size": size, **(step.counts if step else {})}

    def before_steps(self, params: Params, inputs: Tensors, reports: dict[int, RankReport]) -> str | None:
        """A timeout on any rank, then each rank's holdings and parameters after set-up."""
        timeout = self.rules.get("timeout")
        if timeout is not None and (message := timeout_message(reports, timeout)):
            return message
        rule, setup = self.rules.get("holdings"), self.rules.get("setup", "set-up")
        after = (rule or {}).get("after", setup)
        for group in groups(params):
            limit = None if rule is None else self.own["holdings"](params, inputs, len(group)) \
                if "holdings" in self.own else share_limit(rule, inputs, len(group))
            for rank in group:
                message = (rule is not None and holdings_message(reports[rank], rule, self.facts(params, group), limit,
                                                                 given_bytes(rule, inputs), after)) or \
                    (self.rules.get("trainable") and parameters_message(reports[rank]))
                if message:
                    return f"{place(params, group, rank, f'after {after}')}: {message}"
        return None

    def step_message(self, step: RanksStep, params: Params, inputs: Tensors, got: Tensors, expected: Tensors,
                     truth: Tensors, reports: dict[int, RankReport]) -> str | None:
        """The step's outputs, each on every rank (the same on every rank of its group first, where [ranks]
        declares `replicated`), then its phases' collectives on every rank."""
        for output, words in step.outputs.items():
            message = self.replicated_message(step, output, words, params, got, expected) or next(filter(None, (
                self.output_message(step, output, words, group, rank, params, inputs, got, expected, truth, reports)
                for group, rank in self.judged(params, output))), None)
            if message:
                return message
        for phase, rule in step.phases.items():
            for group in groups(params) if rule else ():
                for rank in group:
                    message = self.phase_message(phase, rule, reports[rank], params, group, step)
                    if message:
                        return f"{place(params, group, rank, step.where)}: {message}"
        return None

    def replicated_message(self, step: RanksStep, output: str, words: str, params: Params, got: Tensors,
                           expected: Tensors) -> str | None:
        """Where [ranks] declares `replicated`: the first rank whose output is not its group's first rank's."""
        base = output.partition("@")[0]
        for group, rank in self.judged(params, output) if "replicated" in self.rules else ():
            name, first = f"{base}@{rank}", got.get(f"{base}@{group[0]}")
            message = compare.layout(words, got.get(name), expected[name]) or (None if torch.equal(
                got[name], first) else self.rules["replicated"].format(**self.facts(params, group, step),
                                                                       output=words, first=group[0]))
            if message:
                return f"{place(params, group, rank, step.where)}: {message}"
        return None

    def judged(self, params: Params, output: str) -> list[tuple[list[int], int]]:
        """(group, rank) of each rank an output is judged on: every rank, or the one its name ends with."""
        ranks = [(group, rank) for group in groups(params) for rank in group]
        if "@" not in output:
            return ranks
        return [(group, rank) for group, rank in ranks if rank == int(output.rpartition("@")[2])]

    def output_message(self, step: RanksStep, output: str, words: str, group: list[int], rank: int, params: Params,
                       inputs: Tensors, got: Tensors, expected: Tensors, truth: Tensors,
                       reports: dict[int, RankReport]) -> str | None:
        """What is wrong with one rank's output, and why: the first rule its step's phases broke on the rank, the
        classic mistake it reproduces, or spec.diagnose's words; None when it is right."""
        base = output.partition("@")[0]
        name = f"{base}@{rank}"
        value, reference, want = got.get(name), expected[name], truth.get(name, truth.get(base))
        where, mismatch = place(params, group, rank, step.where), compare.layout(words, value, reference)
        if mismatch is None and output in step.exact:
            message = checks.check_exact(words, value.double(), want)
            return message and f"{where}: {message}"
        allowed = None if mismatch else self.allowed(value, reference, want, inputs, base, params)
        message = mismatch or compare.tensors(words, value.double(), want, atol=allowed, rtol=0)
        if message is None:
            return None
        why = next(filter(None, (self.phase_message(phase, rule, reports[rank], params, group, step)
                                 for phase, rule in step.phases.items() if rule)), None)
        if why is None and allowed is not None:
            why = self.mistake_reproduced(name, base, value, want, allowed, params, inputs,
                                          self.facts(params, group, step) | {"rank": rank})
        if not why and "diagnose" in self.own:
            why = self.own["diagnose"](base, rank, params, inputs, got, truth)
        return f"{where}: {message}{f' — {why}' if why else ''}"

    def allowed(self, got: torch.Tensor, expected: torch.Tensor, truth: torch.Tensor, inputs: Tensors,
                name: str = "", params: Params | None = None) -> float:
        """[ranks]' `relative_tolerance` of the truth's largest magnitude where declared, else the kit's tolerance
        derived from the reference's own error on this rank."""
        relative = self.rules.get("relative_tolerance")
        if relative is None:
            return super().allowed(got, expected, truth, inputs, name, params)
        return relative * max(truth.abs().max().item(), 1e-30) if truth.numel() else 0.0

    def mistake_reproduced(self, name: str, output: str, value: torch.Tensor, want: torch.Tensor, allowed: float,
                           params: Params, inputs: Tensors, facts: dict[str, Any]) -> str:
        """The words of the first classic mistake whose output (by rank, or for every rank) value reproduces."""
        for says, outputs in self.candidates(params, inputs):
            if reproduces(value, outputs.get(name, outputs.get(output)), want, allowed):
                return why_after_colon(remembered(says).format(**facts))
        return ""

    def phase_message(self, phase: str, rule: str, report: RankReport, params: Params, group: list[int],
                      step: RanksStep) -> str | None:
        if rule not in self.rules.get("phases", {}):
            raise KitError(f"{self.package.slug}: a step judges phase {phase} by [ranks.phases.{rule}], which "
                           "problem.toml does not declare")
        table = self.rules["phases"][rule]
        return collectives_message(table.get("says", phase), table, report.phases[phase],
                                   self.facts(params, group, step), table.get("only", self.rules.get("only", "")))

    def sent_by_calls(self, params: Params, reports: dict[int, RankReport]) -> str | None:
        """[ranks.sent] on the bytes each rank's send calls moved, as its observer counted them."""
        bounds = self.own["sent_bounds"](params, "calls") if "sent" in self.rules else None
        if not bounds:
            return None
        sent = {rank: report.moved("send") for rank, report in reports.items()}
        return sent_message(sent, bounds, self.rules["sent"], "calls", self.facts(params))


__all__ = ["RANKS_HOOKS", "RANKS_TABLES", "RanksChecker", "RanksStep", "by_rank", "declared"]
