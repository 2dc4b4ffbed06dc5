"""Judge overhead on the CPU: a problem's tests in-process against the same tests judged end to end.

    .venv/bin/python bench/judge_overhead.py [slug] [--tests sample|all] [--runs N]

Prints the machine, then three medians: the tests run in this process (inputs generated, the reference
solution called through the problem's driver, outputs checked; no sandbox), a judge through the CLI (a
fresh `python -m runner judge` process, as a shell would), and `runner.judge` called in this long-lived
process (as the worker calls it, reference results cached after the first run), each with its ratio to the
in-process time; and the start of one sandboxed harness, spawn to ready, the part a warm pool removes.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from runner import judge, load_problem, seeds  # noqa: E402
from runner.cache import ReferenceCache  # noqa: E402
from runner.harness.serve import Context, _module_from_source  # noqa: E402
from runner.sandbox import SandboxOptions, describe  # noqa: E402

KEY = b"b" * 32


def machine() -> str:
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                 platform.processor())
    return (f"{model}, {os.cpu_count()} cores, Linux {platform.release()}, Python {platform.python_version()}, "
            f"torch {torch.__version__}, torch threads 1, sandbox: {describe(SandboxOptions())}")


def in_process_ms(problem, which: str) -> float:
    """Inputs, the reference through the driver, and the checker, for every selected test, in this process."""
    torch.set_num_threads(1)
    for name in problem.modules:
        _module_from_source(Path(name).stem, problem.source(name).decode(), name)
    driver = _module_from_source("bench_driver", problem.source("driver.py").decode(), "driver.py")
    solution = _module_from_source("bench_solution", problem.source("reference.py").decode(), "reference.py")
    context = Context(torch.device("cpu"))
    started = time.perf_counter()
    for test in problem.selected_tests(which):
        seed = seeds.sample_seed(problem.slug) if test.sample else seeds.hidden_seed(KEY, problem.version, 0)
        inputs = problem.checker.inputs(test.params, seeds.generator(seed, test.name))
        outputs = driver.run(solution, test.params, {k: v.clone() for k, v in inputs.items()}, context)
        message = problem.checker.check(test.params, inputs, outputs, outputs)
        assert message is None, message
    return (time.perf_counter() - started) * 1000


def cli_ms(slug: str, which: str) -> float:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "runner", "judge", slug,
                             str(ROOT / "problems" / slug / "reference.py"), "--device", "cpu", "--tests", which,
                             "--json"], cwd=ROOT, capture_output=True, text=True)
    elapsed = (time.perf_counter() - started) * 1000
    assert result.returncode == 0 and '"verdict": "accepted"' in result.stdout, result.stdout + result.stderr
    return elapsed


def long_lived_ms(problem, which: str, cache: ReferenceCache) -> float:
    started = time.perf_counter()
    verdict = judge(problem, problem.source("reference.py"), device="cpu", tests=which, cache=cache,
                    secret_key=KEY)
    elapsed = (time.perf_counter() - started) * 1000
    assert verdict.verdict == "accepted", verdict.tests
    return elapsed


def start_to_ready_ms() -> float:
    """A sandboxed harness from spawn to ready (torch imported, warmed up): what a warm pool would hide."""
    from runner.client import Harness

    started = time.perf_counter()
    harness = Harness(SandboxOptions(), memory_limit_bytes=4 << 30, threads=1, gpu_index=None)
    try:
        harness.wait_ready()
        return (time.perf_counter() - started) * 1000
    finally:
        harness.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slug", nargs="?", default="stable-softmax")
    parser.add_argument("--tests", choices=["sample", "all"], default="sample")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    problem = load_problem(args.slug)
    print(f"machine: {machine()}")
    print(f"problem: {problem.slug} ({problem.version}), {len(problem.selected_tests(args.tests))} {args.tests} "
          f"tests, median of {args.runs} runs")
    in_process_ms(problem, args.tests)  # first-use costs are the process's, not the tests'
    inside = statistics.median(in_process_ms(problem, args.tests) for _ in range(args.runs))
    cache = ReferenceCache()
    long_lived_ms(problem, args.tests, cache)  # fills the reference cache, as a worker's first judge does
    worker = statistics.median(long_lived_ms(problem, args.tests, cache) for _ in range(args.runs))
    command = statistics.median(cli_ms(problem.slug, args.tests) for _ in range(args.runs))
    ready = statistics.median(start_to_ready_ms() for _ in range(args.runs))
    print(f"{'tests in-process':38} {inside:10.1f} ms")
    print(f"{'runner.judge in a long-lived process':38} {worker:10.1f} ms   {worker / inside:8.1f}x   "
          f"overhead {worker - inside:8.1f} ms")
    print(f"{'python -m runner judge (CLI)':38} {command:10.1f} ms   {command / inside:8.1f}x   "
          f"overhead {command - inside:8.1f} ms")
    print(f"{'of which one sandbox, spawn to ready':38} {ready:10.1f} ms   (torch imported; a warm pool hides it)")
    print(f"{'long-lived judge less spawn to ready':38} {worker - ready:10.1f} ms   (about what remains with a pool)")


if __name__ == "__main__":
    main()
