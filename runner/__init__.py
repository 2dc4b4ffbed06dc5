"""The judge engine: runs a PyTorch submission against a problem package in a sandbox, returns a Verdict.

Plain Python with no web framework: `judge(problem, source, options, on_event=...)` takes a problem, the
source and a JudgeOptions, and returns dataclasses. See docs/judge.md for the command line, the verdicts and
the sandbox, and problems/README.md for the problem format.
"""

from .judge import JudgeError, JudgeOptions, judge
from .problems import Problem, ProblemError, list_problems, load_problem
from .sandbox import SandboxOptions, SandboxUnavailable
from .verdict import STATUSES, VERDICTS, MemoryFigures, TestResult, TimeFigures, Verdict

__all__ = [
    "JudgeError", "JudgeOptions", "MemoryFigures", "Problem", "ProblemError", "STATUSES", "SandboxOptions",
    "SandboxUnavailable", "TestResult", "TimeFigures", "VERDICTS", "Verdict", "judge", "list_problems",
    "load_problem",
]
