"""The command line: list problems, judge a file, check problem packages.

    python -m runner list
    python -m runner judge <problem-slug> <solution.py> [--device auto|cpu|cuda] [--tests sample|all]
                           [--seed-index N] --json
    python -m runner check <slug> | --all [--jobs N] [--seed-index N]
    python -m runner lines [<slug> ...]

`judge` exits 0 whenever a verdict was reached, whatever it is, and 2 when the judge could not run (unknown
problem, unreadable file, a device that is not there), with the reason on stderr. `check` exits 1 when an
expectation was not met. `lines` counts each problem's own code (problems/README.md, "The problem kit") and
exits 1 when a problem is over the budget.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import seeds
from .check import OWN_CODE_BUDGET, check_problem, own_code_lines, shortfalls
from .judge import JudgeError, JudgeOptions, judge
from .pool import WarmPool
from .problems import ProblemError, list_problems, load_problem
from .sandbox import SandboxOptions, default_state_dir
from .verdict import Verdict

EXIT_JUDGE_FAILED = 2
# A judge takes two processes: the user's and the reference's.
CHECK_POOL_SIZE = 2
_SEED_HELP = (f"which hidden seed of the problem version the hidden tests use, 0 to {seeds.SEEDS_PER_VERSION - 1} "
              "(default: one drawn at random)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m runner", description="The sandboxed PyTorch judge.")
    parser.add_argument("--problems-dir", type=Path, default=None, help="problem packages (default: problems/)")
    parser.add_argument("--sandbox", choices=["auto", "bubblewrap", "plain"], default="auto",
                        help="isolation: bubblewrap when it works (auto), bubblewrap or fail, or a plain process")
    parser.add_argument("--require-sandbox", action="store_true", help="refuse to judge without bubblewrap")
    parser.add_argument("--state-dir", type=Path, default=None,
                        help=f"slot locks and the secret seed key (default: {default_state_dir()})")
    parser.add_argument("--uid-base", type=int, default=60000, help="first sandbox uid when run as root")
    parser.add_argument("--bwrap", default=None, help="the bubblewrap binary (default: bwrap on PATH)")
    parser.add_argument("--setpriv", default=None, help="the setpriv binary (default: setpriv on PATH)")
    parser.add_argument("--gpu", type=int, default=0, help="index of the GPU to judge on with --device cuda")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads per submission")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the problems").add_argument("--json", action="store_true")
    judging = commands.add_parser("judge", help="judge one solution file")
    judging.add_argument("problem")
    judging.add_argument("solution", type=Path)
    judging.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    judging.add_argument("--tests", choices=["sample", "all"], default="all")
    judging.add_argument("--json", action="store_true", help="print the verdict as one JSON object")
    judging.add_argument("--seed-index", type=int, default=None, help=_SEED_HELP)
    checking = commands.add_parser("check", help="judge each problem's reference, correct and wrong solutions")
    checking.add_argument("problem", nargs="?")
    checking.add_argument("--all", action="store_true")
    checking.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    checking.add_argument("--jobs", type=int, default=1,
                          help="problems checked at once, each judging one solution at a time (default: 1)")
    checking.add_argument("--seed-index", type=int, default=None,
                          help=_SEED_HELP + "; every solution of a problem gets the same one")
    lines = commands.add_parser("lines", help="count each problem's own checker and driver code")
    lines.add_argument("problems", nargs="*", help="slugs (default: every problem)")
    return parser


def _options(args: argparse.Namespace) -> SandboxOptions:
    extra = {"state_dir": args.state_dir} if args.state_dir else {}
    return SandboxOptions(mode=args.sandbox, require=args.require_sandbox, uid_base=args.uid_base,
                          bwrap=args.bwrap, setpriv=args.setpriv, **extra)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # What the judge imported (torch above all), out of the collections judging starts: a judgement makes objects
    # fast enough to start one every few tests, and each would walk all of those again (4 % of a check's CPU).
    gc.freeze()
    try:
        if args.command == "list":
            return _list(args)
        if args.command == "judge":
            return _judge(args)
        if args.command == "lines":
            return _lines(args)
        return _check(args)
    except (JudgeError, ProblemError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_JUDGE_FAILED


def _list(args: argparse.Namespace) -> int:
    problems = list_problems(args.problems_dir)
    if args.json:
        print(json.dumps([{"slug": p.slug, "title": p.title, "difficulty": p.difficulty, "needs": p.needs,
                           "tags": p.tags, "version": p.version, "tests": len(p.tests)} for p in problems]))
        return 0
    for problem in problems:
        print(f"{problem.slug:24} {problem.difficulty:7} {problem.needs:4} {problem.title}")
    return 0


def _lines(args: argparse.Namespace) -> int:
    problems = ([load_problem(slug, args.problems_dir) for slug in args.problems] if args.problems
                else list_problems(args.problems_dir))
    over = 0
    for problem in problems:
        counted = own_code_lines(problem)
        total = sum(counted.values())
        files = ", ".join(f"{name} {count}" for name, count in counted.items()) or "none"
        mark = "over" if total > OWN_CODE_BUDGET else "ok"
        over += total > OWN_CODE_BUDGET
        print(f"{problem.slug:24} {problem.kind:8} {total:4} lines  {mark:4}  ({files})")
    print(f"budget: {OWN_CODE_BUDGET} non-blank lines of a problem's own code")
    return 1 if over else 0


def _judge(args: argparse.Namespace) -> int:
    source = args.solution.read_bytes()
    problem = load_problem(args.problem, args.problems_dir)
    verdict = judge(problem, source, JudgeOptions(device=args.device, tests=args.tests, sandbox=_options(args),
                                                  gpu_index=args.gpu, threads=args.threads,
                                                  seed_index=args.seed_index))
    if args.json:
        print(json.dumps(verdict.to_json()))
    else:
        print(human(verdict))
    return 0


def human(verdict: Verdict) -> str:
    """A verdict for a terminal."""
    seed = f", hidden seed {verdict.seed_index}" if verdict.seed_index is not None else ""
    lines = [f"{verdict.problem}: {verdict.verdict}  [{verdict.device}, {verdict.sandbox}{seed}]"]
    for test in verdict.tests:
        figures = []
        if test.time_ms is not None:
            figures.append(f"{test.time_ms:.3f} ms")
        if test.peak_bytes is not None:
            figures.append(f"{test.peak_bytes / (1 << 20):.2f} MiB")
        lines.append(f"  {test.status:22} {test.name} {' '.join(figures)}")
        if test.message:
            lines += ["      " + line for line in test.message.splitlines()[-12:]]
        if test.why:
            lines.append(f"      why: {test.why}")
    if verdict.time.ratio is not None:
        lines.append(f"time: {verdict.time.user_ms:.3f} ms vs reference {verdict.time.reference_ms:.3f} ms "
                     f"({verdict.time.ratio:.2f}×)")
    return "\n".join(lines)


def _check(args: argparse.Namespace) -> int:
    if args.all == bool(args.problem):
        raise JudgeError("check takes a problem slug or --all")
    if args.jobs < 1:
        raise JudgeError("--jobs takes a number of at least 1")
    problems = list_problems(args.problems_dir) if args.all else [load_problem(args.problem, args.problems_dir)]
    options = _options(args)
    printing = threading.Lock()
    # Every unmet expectation again at the end, under its problem and seed: a long run's output is often read
    # from its tail alone (a test's captured output, cut in the middle).
    failures: list[str] = []
    pools: list[WarmPool] = []
    own_pool = threading.local()

    def check_one(problem) -> int:
        """Check one problem, its lines printed as they come (one job) or together once it is done."""
        lines: list[str] = []

        def flush() -> None:
            with printing:
                print("\n".join(lines), flush=True)
            lines.clear()

        def say(line: str) -> None:
            lines.append(line)
            if args.jobs == 1:
                flush()

        def fail(what: str) -> None:
            say(f"  FAIL  {what}")
            with printing:
                failures.append(f"  {problem.slug} (hidden seed {seed_index}): {what}")

        # One hidden seed for every solution of the problem, so the reference's results are cached after
        # the first; the line names it, so a failure can be judged again with --seed-index.
        seed_index = args.seed_index if args.seed_index is not None else seeds.draw_index()
        say(f"{problem.slug} ({problem.version}, hidden seed {seed_index})")
        found = shortfalls(problem)
        unmet = len(found)
        for shortfall in found:
            fail(f"the package has {shortfall}")

        def report(expectation) -> None:
            nonlocal unmet
            relative = expectation.path.relative_to(expectation.path.parents[2]) \
                if "solutions" in expectation.path.parts else expectation.path.name
            if expectation.verdict is None:
                say(f"  skip  {relative} (runs on another device)")
            elif expectation.met:
                say(f"  ok    {relative}: {expectation.expected} ({expectation.seconds:.1f} s)")
            else:
                unmet += 1
                fail(f"{relative}: {expectation.explain()} ({expectation.seconds:.1f} s)")

        if not hasattr(own_pool, "pool"):
            # Each solution's processes start while the one before is judged, in a pool per job.
            own_pool.pool = WarmPool(options, size=CHECK_POOL_SIZE, threads=args.threads,
                                     gpu_index=args.gpu if args.device == "cuda" else None, refill_while_lent=True)
            with printing:
                pools.append(own_pool.pool)
        check_problem(problem, JudgeOptions(device=args.device, sandbox=options, gpu_index=args.gpu,
                                            threads=args.threads, start_harness=own_pool.pool.start_harness,
                                            seed_index=seed_index),
                      on_result=report)
        if lines:
            flush()
        return unmet

    try:
        with ThreadPoolExecutor(max_workers=args.jobs, thread_name_prefix="check") as jobs:
            unmet = sum(jobs.map(check_one, problems))
    finally:
        for pool in pools:
            pool.close()
    print("all expectations met" if not unmet else "\n".join([f"{unmet} expectation(s) not met:", *failures]))
    return 1 if unmet else 0
