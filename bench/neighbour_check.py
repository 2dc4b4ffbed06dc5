"""Correct solutions judged beside a neighbour: no false time or memory verdict while another judge runs too.

    nice -n 10 .venv/bin/python bench/neighbour_check.py                  # every CPU problem, 20 rounds each
    .venv/bin/python bench/neighbour_check.py --problem mhsa --rounds 5
    .venv/bin/python bench/neighbour_check.py --rounds 2 --reference-only    # the suite's short version

For each problem that runs on the CPU, a neighbour process judges the problem's reference (all tests) in a
loop, while each correct solution (reference.py and solutions/correct/*.py, less those limited to CUDA) is
judged `--rounds` times with all tests, each time on a hidden seed drawn at random. Per solution it prints:

- accepted: the rounds accepted, out of all of them;
- time: the worst figure judged for the timed test over its limit (1.00 is the limit), and the worst ratio
  of the time observed from outside the sandbox to the time the process reported;
- memory: the largest excess of each outside figure over what the call was allowed (runner/testcase.py,
  outside_excess): the growth during a call over its claim plus the copies, and the level above the
  process's size before the load over the most allowed so far. RSS_GROWTH_SLACK_BYTES and
  RSS_LEVEL_SLACK_BYTES must exceed them.

It exits 1 when any round was not accepted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner import JudgeOptions, judge, list_problems, load_problem, testcase  # noqa: E402
from runner.cache import ReferenceCache  # noqa: E402
from runner.check import device_of  # noqa: E402
from runner.pool import WarmPool  # noqa: E402
from runner.sandbox import SandboxOptions  # noqa: E402

MIB = 1 << 20
POOL_SIZE = 2


@dataclass
class Figures:
    """What one solution's rounds showed."""

    accepted: int = 0
    rounds: int = 0
    time_of_limit: float = 0.0
    observed_over_reported: float = 0.0
    growth_excess: int | None = None
    level_excess: int | None = None
    rejections: list[str] = field(default_factory=list)


class Recorder:
    """Wraps the judge's own functions to see the figures a verdict does not carry."""

    def __init__(self):
        self.excesses: list[tuple[int | None, int | None]] = []
        self.times: list[tuple[float, float]] = []
        outside_excess, judge_time = testcase.outside_excess, testcase._judge_time

        def recorded_excess(*args, **kwargs):
            found = outside_excess(*args, **kwargs)
            self.excesses.append(found)
            return found

        def recorded_time(problem, device, result, reported_ms, observed_ms, reference_ms):
            self.times.append((reported_ms, observed_ms))
            return judge_time(problem, device, result, reported_ms, observed_ms, reference_ms)

        testcase.outside_excess, testcase._judge_time = recorded_excess, recorded_time

    def clear(self) -> None:
        self.excesses.clear()
        self.times.clear()


def correct_solutions(problem, reference_only: bool = False) -> list[Path]:
    paths = [problem.path / "reference.py"]
    if not reference_only:
        paths += sorted((problem.path / "solutions" / "correct").glob("*.py"))
    return [path for path in paths if device_of(path) in (None, "cpu")]


def judge_rounds(problem, path: Path, rounds: int, options: JudgeOptions, recorder: Recorder) -> Figures:
    figures = Figures(rounds=rounds)
    source = path.read_bytes()
    for _ in range(rounds):
        recorder.clear()
        verdict = judge(problem, source, options)
        if verdict.verdict == "accepted":
            figures.accepted += 1
        else:
            failing = next(t for t in verdict.tests if t.status not in ("passed", "skipped"))
            figures.rejections.append(f"{verdict.verdict}: {failing.name}: {failing.message[:300]}")
        if verdict.time.user_ms is not None and verdict.time.reference_ms:
            limits = problem.limits
            allowed = min(limits.time_ratio * verdict.time.reference_ms, limits.time_cap_ms)
            figures.time_of_limit = max(figures.time_of_limit, verdict.time.user_ms / allowed)
        for reported, observed in recorder.times:
            if reported:
                figures.observed_over_reported = max(figures.observed_over_reported, observed / reported)
        for growth, level in recorder.excesses:
            figures.growth_excess = larger(figures.growth_excess, growth)
            figures.level_excess = larger(figures.level_excess, level)
    return figures


def larger(a: int | None, b: int | None) -> int | None:
    """The larger of two figures, either of which may be missing."""
    return b if a is None else a if b is None else max(a, b)


def mib(size: int | None) -> str:
    return "n/a" if size is None else f"{size / MIB:+.1f} MiB"


def neighbour(slug: str) -> None:
    """Judge slug's reference with all tests, over and over, until killed."""
    problem = load_problem(slug)
    source = problem.source("reference.py")
    options = JudgeOptions(device="cpu", cache=ReferenceCache())
    while True:
        judge(problem, source, options)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--problem", action="append", help="a problem slug (repeatable); default: every CPU problem")
    parser.add_argument("--reference-only", action="store_true", help="judge only each problem's reference")
    parser.add_argument("--neighbour", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.neighbour:
        neighbour(args.neighbour)
        return 0
    problems = [load_problem(slug) for slug in args.problem] if args.problem else list_problems()
    problems = [problem for problem in problems if problem.needs != "cuda"]
    recorder = Recorder()
    sandbox = SandboxOptions()
    pool = WarmPool(sandbox, size=POOL_SIZE, refill_while_lent=True)
    options = JudgeOptions(device="cpu", sandbox=sandbox, cache=ReferenceCache(), start_harness=pool.start_harness)
    rejected = 0
    try:
        for problem in problems:
            beside = subprocess.Popen([sys.executable, __file__, "--neighbour", problem.slug],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                print(f"{problem.slug} (a judge of its reference beside each)", flush=True)
                worst_growth = worst_level = None
                for path in correct_solutions(problem, args.reference_only):
                    started = time.monotonic()
                    figures = judge_rounds(problem, path, args.rounds, options, recorder)
                    rejected += figures.rounds - figures.accepted
                    print(f"  {path.name:32} {figures.accepted:>3}/{figures.rounds}  time {figures.time_of_limit:.2f} "
                          f"of the limit (outside/reported {figures.observed_over_reported:.2f})  memory growth "
                          f"{mib(figures.growth_excess)}, level {mib(figures.level_excess)}  "
                          f"({time.monotonic() - started:.0f} s)", flush=True)
                    for rejection in figures.rejections:
                        print(f"      {rejection}", flush=True)
                    worst_growth = larger(worst_growth, figures.growth_excess)
                    worst_level = larger(worst_level, figures.level_excess)
                print(f"  largest excess over what a call was allowed: growth {mib(worst_growth)}, "
                      f"level {mib(worst_level)}", flush=True)
            finally:
                beside.kill()
                beside.wait()
    finally:
        pool.close()
    print("every round accepted" if not rejected else f"{rejected} round(s) not accepted")
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main())
