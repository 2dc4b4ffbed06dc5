"""How long a failing Submit takes to judge, for every problem, in a long-lived process as the worker is.

    .venv/bin/python bench/wrong_latency.py                      # every problem, 5 judges of each row
    .venv/bin/python bench/wrong_latency.py --problems mhsa gqa-kv-cache --runs 10

For each problem, the first known-wrong solution (in file name order) that declares each of `wrong_answer`,
`runtime_error` and `time_limit_exceeded`, judged on every test as a Submit is (each test's status shown, none
skipped after a failure), with the warm pool of a worker and the reference's results cached by a first,
unmeasured judge of the same seed: what a learner's second wrong Submit of the day meets. The figure is the
judge's latency; a Submit through the API adds the queue and the page (docs/speed.md, submit_latency.py).

Targets: a wrong answer and a runtime error within 3 s at p50; a time verdict within the problem's own wall
budget (`[limits] wall_s`) plus 1 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from runner import JudgeOptions, judge, list_problems, load_problem  # noqa: E402
from runner.cache import ReferenceCache  # noqa: E402
from runner.check import header_field  # noqa: E402
from runner.pool import WarmPool  # noqa: E402
from runner.sandbox import SandboxOptions  # noqa: E402
from runner.verdict import RUNTIME_ERROR, TIME_LIMIT_EXCEEDED, WRONG_ANSWER  # noqa: E402
from stack import machine, mark, percentile  # noqa: E402

KEY = b"w" * 32
SEED_INDEX = 5
TARGET_S = 3.0
POOL_SIZE = 2
VERDICTS = (WRONG_ANSWER, RUNTIME_ERROR, TIME_LIMIT_EXCEEDED)


def first_declaring(problem, verdict: str) -> Path | None:
    """The problem's first known-wrong solution whose header expects verdict."""
    return next((path for path in sorted((problem.path / "solutions" / "wrong").glob("*.py"))
                 if header_field(path, "expect") == verdict), None)


def judged_s(problem, source: bytes, cache: ReferenceCache, pool: WarmPool) -> tuple[float, str]:
    if not pool.wait_full(300):
        raise SystemExit("the warm pool did not fill within 300 s")
    started = time.perf_counter()
    verdict = judge(problem, source, JudgeOptions(device="cpu", tests="all", seed_index=SEED_INDEX, cache=cache,
                                                  secret_key=KEY, start_harness=pool.start_harness))
    return time.perf_counter() - started, verdict.verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", nargs="*", help="slugs (default: every problem)")
    parser.add_argument("--runs", type=int, default=5, help="measured judges of each row (default: 5)")
    args = parser.parse_args()
    slugs = args.problems or [problem.slug for problem in list_problems()]
    print(f"machine: {machine()}")
    print(f"every test of each solution (a Submit), seed index {SEED_INDEX}, reference cached, {POOL_SIZE} warm "
          f"sandboxes; {args.runs} judges a row; seconds")
    print(f"  {'problem':22s} {'expected':21s} {'p50':>6s} {'p95':>6s} {'target':>7s}       solution")
    cache, pool = ReferenceCache(), WarmPool(SandboxOptions(), size=POOL_SIZE)
    missed, started = 0, time.perf_counter()
    try:
        for slug in slugs:
            problem = load_problem(slug)
            for expected in VERDICTS:
                path = first_declaring(problem, expected)
                if path is None:
                    continue
                source = path.read_bytes()
                judged_s(problem, source, cache, pool)  # the reference's results for this seed, cached
                times, verdicts = zip(*(judged_s(problem, source, cache, pool) for _ in range(args.runs)))
                target = problem.limits.wall_s + 1 if expected == TIME_LIMIT_EXCEEDED else TARGET_S
                p50 = percentile(list(times), 50)
                met = p50 <= target and set(verdicts) == {expected}
                missed += not met
                wrong = "" if set(verdicts) == {expected} else f"  judged {sorted(set(verdicts))}"
                print(f"  {slug:22s} {expected:21s} {p50:6.2f} {percentile(list(times), 95):6.2f} {target:7.1f} "
                      f"{mark(met)}  {path.name}{wrong}", flush=True)
    finally:
        pool.close()
    outcome = "every row within its target" if not missed else f"{missed} rows missed their target"
    print(f"{time.perf_counter() - started:.0f} s in all; {outcome}")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
