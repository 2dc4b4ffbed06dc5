"""What judging costs beyond the work itself, on the CPU, in a long-lived process as the worker is.

    .venv/bin/python bench/judge_overhead.py mhsa            # sample and all tests, 20 judges each way
    .venv/bin/python bench/judge_overhead.py stable-softmax --tests sample --runs 30 --cli-runs 3

For each test selection, interleaved, `--runs` times:

- in-process: the same tests with no sandbox, in this process: inputs drawn, the reference called through
  the problem's driver and checked, and for a timed test its rounds of timed calls, twice (the judge times
  the user's code and the reference's), a warm-up call first, and only the first round where the judge
  stops there (a figure under a third of its limit, runner/testcase.py);
- pooled: `runner.judge` of the reference solution with a warm pool (runner/pool.py, two processes), each
  judge starting with the pool full, as a submission finds it on a worker between presses of Run;
- cold: the same judge with every sandbox started on demand (JUDGE_POOL_SIZE=0).

The overhead of a judge is its latency minus the in-process time of the same round; the script prints the
median (p50) and p95 of each. Reference results are cached after a first, unmeasured judge, as a worker's are.
It also prints, as before, the latency of the command line (`python -m runner judge`, a fresh interpreter
each time) and the time one sandbox takes from spawn to ready (the import of torch a pool hides).

Target (mhsa, sample tests): pooled p50 overhead at most 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from runner import JudgeOptions, judge, load_problem, seeds  # noqa: E402
from runner.cache import ReferenceCache  # noqa: E402
from runner.client import Harness  # noqa: E402
from runner.harness.serve import Context, _module_from_source  # noqa: E402
from runner.kit.memo import FLOAT64_RUNS  # noqa: E402
from runner.pool import WarmPool  # noqa: E402
from runner.sandbox import SandboxOptions, describe  # noqa: E402
from runner.testcase import DECISIVE_TIME_FACTOR  # noqa: E402
from stack import machine, mark, percentile  # noqa: E402

KEY = b"b" * 32
TARGET_MS = 100.0
POOL_SIZE = 2


class InProcess:
    """A problem's tests run here, without a sandbox: the work a judge cannot avoid."""

    def __init__(self, problem):
        torch.set_num_threads(1)
        self.problem = problem
        for name, source in problem.sandbox_blobs(b"").items():
            if name.startswith("module:"):
                _module_from_source(name.removeprefix("module:"), source.decode(), f"{name.removeprefix('module:')}.py")
        self.driver = _module_from_source("bench_driver", problem.driver_source().decode(), "driver.py")
        self.solution = _module_from_source("bench_solution", problem.source("reference.py").decode(), "reference.py")
        self.context = Context(torch.device("cpu"))

    def _call(self, test, inputs) -> float:
        """Seconds of this thread's CPU the driver's call took; the check comes after."""
        inputs_copy = {k: v.clone() for k, v in inputs.items()}
        started = time.thread_time()
        outputs = self.driver.run(self.solution, test.params, inputs_copy, self.context)
        elapsed = time.thread_time() - started
        message = self.problem.checker.check(test.params, inputs, outputs, outputs)
        assert message is None, message
        return elapsed

    def _timed_rounds(self, test, hidden: int) -> None:
        """The judge's rounds of a timed test, the reference in both seats: a warm-up call each, then rounds
        until the last, or until the first round's figure is far from its limit (testcase.DECISIVE_TIME_FACTOR)."""
        limits = self.problem.limits
        for _ in ("user", "reference"):
            self._call(test, self.problem.checker.inputs(test.params, seeds.generator(hidden, test.name, "timed", 0, 0)))
        for round_index in range(limits.timed_rounds):
            times = {"user": [], "reference": []}
            for who in times:
                for index in range(limits.timed_iterations):
                    generator = seeds.generator(hidden, test.name, "timed", round_index, index)
                    times[who].append(self._call(test, self.problem.checker.inputs(test.params, generator)))
            allowed = min(limits.time_ratio * statistics.median(times["reference"]), limits.time_cap_ms / 1000)
            share = statistics.median(times["user"]) / max(allowed, 1e-9)
            if round_index == 0 and not 1 / DECISIVE_TIME_FACTOR <= share <= DECISIVE_TIME_FACTOR:
                return

    def run_ms(self, which: str) -> float:
        hidden = seeds.hidden_seed(KEY, self.problem.version, 0)
        FLOAT64_RUNS.clear()  # the floor computes every truth once, as a judge of a seed not seen before does
        started = time.perf_counter()
        for test in self.problem.selected_tests(which):
            seed = seeds.sample_seed(self.problem.slug) if test.sample else hidden
            self._call(test, self.problem.checker.inputs(test.params, seeds.generator(seed, test.name)))
            if test.timed:
                self._timed_rounds(test, hidden)
        return (time.perf_counter() - started) * 1000


def judge_ms(problem, which: str, cache: ReferenceCache, options: SandboxOptions, pool: WarmPool | None) -> float:
    if pool is not None and not pool.wait_full(300):
        raise SystemExit("the warm pool did not fill within 300 s")
    start_harness = pool.start_harness if pool is not None else Harness
    started = time.perf_counter()
    verdict = judge(problem, problem.source("reference.py"),
                    JudgeOptions(device="cpu", tests=which, cache=cache, secret_key=KEY, sandbox=options,
                                 start_harness=start_harness))
    elapsed = (time.perf_counter() - started) * 1000
    assert verdict.verdict == "accepted", [t for t in verdict.tests if t.status != "passed"]
    return elapsed


def cli_ms(slug: str, which: str) -> float:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "runner", "judge", slug,
                             str(ROOT / "problems" / slug / "reference.py"), "--device", "cpu", "--tests", which,
                             "--json"], cwd=ROOT, capture_output=True, text=True)
    elapsed = (time.perf_counter() - started) * 1000
    assert result.returncode == 0 and '"verdict": "accepted"' in result.stdout, result.stdout + result.stderr
    return elapsed


def spawn_to_ready_ms(options: SandboxOptions) -> float:
    started = time.perf_counter()
    harness = Harness(options, memory_limit_bytes=4 << 30, threads=1, gpu_index=None)
    try:
        harness.wait_ready()
        return (time.perf_counter() - started) * 1000
    finally:
        harness.close()


def measure(problem, which: str, runs: int, options: SandboxOptions, pool: WarmPool) -> dict[str, list[float]]:
    inside = InProcess(problem)
    cache = ReferenceCache()
    inside.run_ms(which)  # first-use costs are the process's, not the tests'
    judge_ms(problem, which, cache, options, pool)  # fills the reference cache, as a worker's first judge does
    found: dict[str, list[float]] = {"in-process": [], "pooled": [], "cold": [], "pooled overhead": [],
                                     "cold overhead": []}
    for _ in range(runs):
        baseline = inside.run_ms(which)
        pooled = judge_ms(problem, which, cache, options, pool)
        cold = judge_ms(problem, which, cache, options, None)
        found["in-process"].append(baseline)
        found["pooled"].append(pooled)
        found["cold"].append(cold)
        found["pooled overhead"].append(pooled - baseline)
        found["cold overhead"].append(cold - baseline)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slug", nargs="?", default="mhsa")
    parser.add_argument("--tests", choices=["sample", "all", "both"], default="both")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--cli-runs", type=int, default=3)
    args = parser.parse_args()
    problem = load_problem(args.slug)
    options = SandboxOptions()
    selections = ["sample", "all"] if args.tests == "both" else [args.tests]
    pool = WarmPool(options, size=POOL_SIZE)
    try:
        results = {which: measure(problem, which, args.runs, options, pool) for which in selections}
        stats = pool.stats
    finally:
        pool.close()
    cli = {which: statistics.median(cli_ms(problem.slug, which) for _ in range(args.cli_runs))
           for which in selections if args.cli_runs}
    ready = statistics.median(spawn_to_ready_ms(options) for _ in range(max(3, args.cli_runs)))

    print(f"machine: {machine()}")
    print(f"sandbox: {describe(options)}; torch threads 1; warm pool of {POOL_SIZE}, "
          f"{'refills under SCHED_IDLE' if pool.idle else 'refills at normal priority'}")
    print(f"problem: {problem.slug} ({problem.version}); {args.runs} judges per row, interleaved; "
          f"pool lent {stats.lent_ready} ready and {stats.lent_starting} still starting, started {stats.cold} cold")
    print(f"{'tests':7} {'figure':34} {'p50 ms':>9} {'p95 ms':>9}")
    for which, found in results.items():
        count = len(problem.selected_tests(which))
        for name in ("in-process", "pooled", "cold", "pooled overhead", "cold overhead"):
            values = found[name]
            label = {"in-process": f"{count} tests in-process", "pooled": "runner.judge, warm pool",
                     "cold": "runner.judge, cold starts", "pooled overhead": "overhead with the pool",
                     "cold overhead": "overhead with cold starts"}[name]
            print(f"{which:7} {label:34} {percentile(values, 50):9.1f} {percentile(values, 95):9.1f}")
        if which in cli:
            print(f"{which:7} {'python -m runner judge (CLI), median':34} {cli[which]:9.1f}")
    print(f"{'':7} {'one sandbox, spawn to ready, median':34} {ready:9.1f}")
    if "sample" in results and problem.slug == "mhsa":
        pooled = percentile(results["sample"]["pooled overhead"], 50)
        cold = percentile(results["sample"]["cold overhead"], 50)
        print(f"target: mhsa sample tests, p50 overhead with the pool <= {TARGET_MS:.0f} ms: {pooled:.1f} ms "
              f"(cold starts: {cold:.1f} ms)  {mark(pooled <= TARGET_MS)}")


if __name__ == "__main__":
    main()
