"""Checking a problem package against itself: its reference and correct solutions must be accepted, each
known-wrong solution must get the verdict (and message) its header declares."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from . import seeds
from .harness.measure import forbids
from .judge import JudgeOptions, SharedReference, judge
from .kit.sampler import SamplerChecker
from .problems import KIT_DIR, Problem, read_expectation
from .verdict import Verdict


@dataclass
class Expectation:
    """One solution file's declared outcome, and what the judge gave it."""

    path: Path
    expected: str
    message: str | None
    verdict: Verdict | None = None
    seconds: float = 0.0
    fails_on: str | None = None  # the test the header says it first fails on

    @property
    def failing(self):
        """The first test that did not pass, if any."""
        if self.verdict is None:
            return None
        return next((t for t in self.verdict.tests if t.status not in ("passed", "skipped")), None)

    @property
    def met(self) -> bool:
        if self.verdict is None or self.verdict.verdict != self.expected:
            return False
        if self.fails_on is not None and (self.failing is None or self.failing.name != self.fails_on):
            return False
        if self.message is None:
            return True
        return any(self.message in words for test in self.verdict.tests for words in said(test))

    def explain(self) -> str:
        if self.verdict is None:
            return "not judged"
        failing = self.failing
        said = f" ({failing.name}: {failing.message[:300]})" if failing else ""
        wanted = f"{self.expected}" + (f" on test {self.fails_on}" if self.fails_on else "") \
            + (f" with a message containing {self.message!r}" if self.message else "")
        return f"expected {wanted}, got {self.verdict.verdict}{said}"


def said(test) -> tuple[str, ...]:
    """A test's message with its why joined back on as the problem's words have it ("... gives: the rule"), so
    that a header's `# message:` may quote the mistake, the rule, or both across the join (the why begins with
    a capital, which the words may not have had)."""
    if not test.why:
        return (test.message,)
    joined = f"{test.message.removesuffix('.')}: "
    return joined + test.why, joined + test.why[:1].lower() + test.why[1:]


def header_field(path: Path, name: str) -> str | None:
    """A `# <name>: value` line among a solution file's first lines (device, fails-on), if any."""
    for line in path.read_text(errors="replace").splitlines()[:10]:
        if line.startswith(f"# {name}:"):
            return line.split(":", 1)[1].strip()
    return None


def device_of(path: Path) -> str | None:
    """The `# device:` a solution file is limited to (cuda-only tricks), if any."""
    return header_field(path, "device")


MIN_CORRECT_STYLES = 3
MIN_KNOWN_WRONG = 6


def shortfalls(problem: Problem) -> list[str]:
    """What the package lacks of the solutions every problem must carry."""
    correct = len(list((problem.path / "solutions" / "correct").glob("*.py")))
    wrong = len(list((problem.path / "solutions" / "wrong").glob("*.py")))
    found = []
    names = {test.name for test in problem.tests}
    for path in sorted((problem.path / "solutions").glob("*/*.py")):
        named = header_field(path, "fails-on")
        if named is not None and named not in names:
            found.append(f"{path.name}, whose '# fails-on: {named}' names no test of the problem")
    if correct < MIN_CORRECT_STYLES:
        found.append(f"{correct} correct solutions besides the reference; at least {MIN_CORRECT_STYLES} styles are needed")
    if wrong < MIN_KNOWN_WRONG:
        found.append(f"{wrong} known-wrong solutions; at least {MIN_KNOWN_WRONG} classic mistakes are needed")
    if isinstance(problem.checker, SamplerChecker):
        generator = torch.Generator().manual_seed(0)
        found += [f"a test, {test.name}, that cannot tell a wrong sampler: {shortfall}" for test in problem.tests
                  for shortfall in problem.checker.powerless(test.params, problem.checker.inputs(test.params, generator))]
    found += [f"{name}, an operator of the installed PyTorch whose name holds the forbidden stem {stem!r}, neither "
              "forbidden nor listed under [allowed_operators] with why it may be called"
              for name, stem in unjudged_operators(problem)]
    return found


def unjudged_operators(problem: Problem) -> list[tuple[str, str]]:
    """(operator, stem) for every operator the installed PyTorch registers whose name (without its namespace and
    overload) holds one of the problem's forbidden stems, and which the problem neither forbids nor allows by
    name: what a problem forbids is a computation, and a list of names misses the kernel it never heard of
    (aten::_masked_softmax computes a softmax as surely as aten::_softmax)."""
    stems = problem.declared.get("forbidden_stems", [])
    forbidden, allowed = forbids(problem.forbidden), forbids(list(problem.declared.get("allowed_operators", {})))
    found = []
    for registered in sorted(torch._C._dispatch_get_all_op_names()):
        base = registered.split("::", 1)[-1]
        # The dispatcher names a default overload without one; a forbidden list names it as the watch does.
        name = registered if "." in base else f"{registered}.default"
        stem = next((stem for stem in stems if stem in base.split(".", 1)[0]), None)
        if stem is not None and not forbidden(name) and not allowed(name):
            found.append((name, stem))
    return found


OWN_CODE_BUDGET = 80


def own_code_lines(problem: Problem) -> dict[str, int]:
    """The problem's own code, non-blank lines per file: the folder's .py files other than the reference, the
    starter and the solutions, and any kit file that names the problem (the kit is shared, so it should be
    none). The problems guide sets the budget, OWN_CODE_BUDGET lines in all."""
    counted = {}
    for path in sorted(problem.path.rglob("*.py")):
        relative = path.relative_to(problem.path)
        if relative.parts[0] == "solutions" or relative.name in ("reference.py", "starter.py"):
            continue
        counted[str(relative)] = _non_blank(path)
    named = re.compile(rf"(?<![\w-]){re.escape(problem.slug)}(?![\w-])")
    for path in sorted(KIT_DIR.glob("*.py")):
        if named.search(path.read_text()):
            counted[f"runner/kit/{path.name}"] = _non_blank(path)
    return counted


def _non_blank(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if line.strip())


def check_problem(problem: Problem, options: JudgeOptions, *, on_result=None) -> list[Expectation]:
    """Judge every solution of problem on options.device with all tests, each up to its first failing test
    (whose status is the verdict, as in a full run); the expectations, met or not.

    Every solution meets the same hidden seed (options.seed_index, or one drawn here), so the reference's
    results computed for the first are cached for the rest, and one reference process serves every timed
    test of them all."""
    device = options.device
    seed_index = options.seed_index if options.seed_index is not None else seeds.draw_index()
    reference = SharedReference()
    options = replace(options, tests="all", stop_at_first_failure=True, seed_index=seed_index,
                      shared_reference=reference)
    found = []
    try:
        for path, expected, message in problem.solutions():
            expectation = Expectation(path, expected, message, fails_on=header_field(path, "fails-on"))
            wanted_device = device_of(path)
            if wanted_device is None or wanted_device == device:
                started = time.monotonic()
                expectation.verdict = judge(problem, path.read_bytes(), options)
                expectation.seconds = time.monotonic() - started
            found.append(expectation)
            if on_result:
                on_result(expectation)
    finally:
        reference.close()
    return found


__all__ = ["OWN_CODE_BUDGET", "Expectation", "check_problem", "own_code_lines", "read_expectation", "shortfalls",
           "unjudged_operators"]
