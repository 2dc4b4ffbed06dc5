"""Verdicts and per-test results: the plain data the judge hands back.

The names are a contract (the web app stores them and the CLI prints them): see docs/judge.md, "Verdicts".
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from . import version

ACCEPTED = "accepted"
WRONG_ANSWER = "wrong_answer"
TIME_LIMIT_EXCEEDED = "time_limit_exceeded"
MEMORY_LIMIT_EXCEEDED = "memory_limit_exceeded"
RUNTIME_ERROR = "runtime_error"
COMPILE_ERROR = "compile_error"
FORBIDDEN = "forbidden"
INTERNAL_ERROR = "internal_error"

VERDICTS = (
    ACCEPTED,
    WRONG_ANSWER,
    TIME_LIMIT_EXCEEDED,
    MEMORY_LIMIT_EXCEEDED,
    RUNTIME_ERROR,
    COMPILE_ERROR,
    FORBIDDEN,
    INTERNAL_ERROR,
)

PASSED = "passed"
SKIPPED = "skipped"
# A test's status: passed, skipped, or the failing verdict it produced.
STATUSES = (PASSED, SKIPPED) + tuple(v for v in VERDICTS if v != ACCEPTED)

# A failure's words say what is wrong and where; the rule or the fix behind it is its "why", which a learner
# opens on request (it counts as a hint). The judge's own words carry it after this mark, and the result keeps
# it apart (split_why); words the submission's process sent are never split, so it cannot choose one.
WHY_MARK = "\n\nWhy: "


def with_why(message: str, why: str) -> str:
    """message, carrying why (begun with a capital) for the result to keep apart."""
    return f"{message}{WHY_MARK}{why[:1].upper()}{why[1:]}" if why else message


def split_why(message: str) -> tuple[str, str]:
    """A checker's message as (what is wrong, why), the second empty when it carries none."""
    said, _, why = message.partition(WHY_MARK)
    return said, why


@dataclass
class TestResult:
    """One test's outcome; a figure that was not measured is None."""

    __test__ = False  # a name pytest would otherwise collect

    name: str
    status: str
    message: str = ""
    time_ms: float | None = None
    peak_bytes: int | None = None
    why: str = ""  # the rule or the fix behind a failure, shown only on request (WHY_MARK)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown test status {self.status!r}")


@dataclass
class TimeFigures:
    """Median time of the user's call and the reference's, measured in the same run."""

    user_ms: float | None = None
    reference_ms: float | None = None
    ratio: float | None = None


@dataclass
class MemoryFigures:
    """Peak live-tensor bytes of the user's call and the reference's."""

    user_peak_bytes: int | None = None
    reference_peak_bytes: int | None = None
    ratio: float | None = None


@dataclass
class Verdict:
    """The outcome of judging one submission against one problem."""

    problem: str
    verdict: str
    tests: list[TestResult] = field(default_factory=list)
    device: str = "cpu"
    sandbox: str = ""
    time: TimeFigures = field(default_factory=TimeFigures)
    memory: MemoryFigures = field(default_factory=MemoryFigures)
    stdout: str = ""
    stderr: str = ""
    judge_version: str = field(default_factory=version.current)  # a hash of the judge's code (runner/version.py)
    problem_version: str = ""
    # Which of the version's hidden seeds the hidden tests drew their inputs from; None when none ran.
    seed_index: int | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}")

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON object (plain types only)."""
        return asdict(self)


def overall(tests: list[TestResult]) -> str:
    """The status of the first test, in the problem's order, that did not pass; accepted if none."""
    for test in tests:
        if test.status not in (PASSED, SKIPPED):
            return test.status
    if any(test.status == SKIPPED for test in tests):
        # Skips only follow a failure; all-skipped with no failure means nothing was judged.
        return INTERNAL_ERROR
    return ACCEPTED


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """numerator / denominator, or None when either figure is missing or the denominator is not positive."""
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator
