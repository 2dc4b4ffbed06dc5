"""Checking a problem package against itself: its reference and correct solutions must be accepted, each
known-wrong solution must get the verdict (and message) its header declares."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from . import seeds
from .judge import JudgeOptions, judge
from .problems import Problem, read_expectation
from .verdict import Verdict


@dataclass
class Expectation:
    """One solution file's declared outcome, and what the judge gave it."""

    path: Path
    expected: str
    message: str | None
    verdict: Verdict | None = None
    seconds: float = 0.0

    @property
    def met(self) -> bool:
        if self.verdict is None or self.verdict.verdict != self.expected:
            return False
        if self.message is None:
            return True
        return any(self.message in test.message for test in self.verdict.tests)

    def explain(self) -> str:
        if self.verdict is None:
            return "not judged"
        failing = next((t for t in self.verdict.tests if t.status not in ("passed", "skipped")), None)
        said = f" ({failing.name}: {failing.message[:300]})" if failing else ""
        wanted = f"{self.expected}" + (f" with a message containing {self.message!r}" if self.message else "")
        return f"expected {wanted}, got {self.verdict.verdict}{said}"


def device_of(path: Path) -> str | None:
    """The `# device:` a solution file is limited to (cuda-only tricks), if any."""
    for line in path.read_text(errors="replace").splitlines()[:10]:
        if line.startswith("# device:"):
            return line.split(":", 1)[1].strip()
    return None


MIN_CORRECT_STYLES = 3
MIN_KNOWN_WRONG = 5


def shortfalls(problem: Problem) -> list[str]:
    """What the package lacks of the solutions every problem must carry."""
    correct = len(list((problem.path / "solutions" / "correct").glob("*.py")))
    wrong = len(list((problem.path / "solutions" / "wrong").glob("*.py")))
    found = []
    if correct < MIN_CORRECT_STYLES:
        found.append(f"{correct} correct solutions besides the reference; at least {MIN_CORRECT_STYLES} styles are needed")
    if wrong < MIN_KNOWN_WRONG:
        found.append(f"{wrong} known-wrong solutions; at least {MIN_KNOWN_WRONG} classic mistakes are needed")
    return found


def check_problem(problem: Problem, options: JudgeOptions, *, on_result=None) -> list[Expectation]:
    """Judge every solution of problem on options.device with all tests, each up to its first failing test
    (whose status is the verdict, as in a full run); the expectations, met or not.

    Every solution meets the same hidden seed (options.seed_index, or one drawn here), so the reference's
    results computed for the first are cached for the rest."""
    device = options.device
    seed_index = options.seed_index if options.seed_index is not None else seeds.draw_index()
    options = replace(options, tests="all", stop_at_first_failure=True, seed_index=seed_index)
    found = []
    for path, expected, message in problem.solutions():
        expectation = Expectation(path, expected, message)
        wanted_device = device_of(path)
        if wanted_device is None or wanted_device == device:
            started = time.monotonic()
            expectation.verdict = judge(problem, path.read_bytes(), options)
            expectation.seconds = time.monotonic() - started
        found.append(expectation)
        if on_result:
            on_result(expectation)
    return found


__all__ = ["Expectation", "check_problem", "read_expectation", "shortfalls"]
