"""The judge's speed on a GPU: the warm pool on CUDA, and the judge's timing against triton's do_bench.

    $PYTHON bench/gpu_speed.py OUT_DIR [--device cuda] [--judges 5] [--sandbox auto|bubblewrap|plain]
                               [--bwrap PATH] [--setpriv PATH]

bench/gpu_check.sh runs it; DEVICE=cpu runs the pool part on a machine without a GPU.

1. Submit to first test, mhsa reference, sample tests: the time from calling `runner.judge` to its first
   test's event, with a warm pool of two sandboxes whose harnesses initialised CUDA before the submission
   existed, and with every sandbox started on demand; `--judges` of each, interleaved.
2. The judge's reported time for the mhsa reference (its timed test, all tests judged: `time.reference_ms`,
   the median of the reference's timed calls) against `triton.testing.do_bench(..., return_mode="median")`
   on the same function (the problem's driver calling the reference, on the same test's inputs), in this
   process; and the spread of the judge's figure over `--judges` judges. Target: within 5 %.

Everything printed also goes to OUT_DIR/gpu-speed.txt, and the raw figures to OUT_DIR/gpu-speed.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from runner import JudgeOptions, SandboxOptions, judge, load_problem, seeds  # noqa: E402
from runner.cache import ReferenceCache  # noqa: E402
from runner.client import Harness  # noqa: E402
from runner.harness.serve import Context, _module_from_source  # noqa: E402
from runner.pool import WarmPool  # noqa: E402
from runner.sandbox import gpus  # noqa: E402
from stack import machine, mark  # noqa: E402

PROBLEM = "mhsa"
TARGET = 0.05


class Report:
    """Lines printed and kept for OUT_DIR, and the raw figures."""

    def __init__(self, out: Path):
        self.out, self.lines, self.figures = out, [], {}

    def say(self, line: str) -> None:
        print(line, flush=True)
        self.lines.append(line)

    def save(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "gpu-speed.txt").write_text("\n".join(self.lines) + "\n")
        (self.out / "gpu-speed.json").write_text(json.dumps(self.figures, indent=2) + "\n")


def to_first_test_s(problem, options, device: str, cache: ReferenceCache, start_harness) -> float:
    first = []
    started = time.perf_counter()

    def on_event(event: dict) -> None:
        if event["event"] == "test" and not first:
            first.append(time.perf_counter() - started)

    verdict = judge(problem, problem.source("reference.py"),
                    JudgeOptions(device=device, tests="sample", sandbox=options, cache=cache,
                                 start_harness=start_harness), on_event=on_event)
    if verdict.verdict != "accepted":
        raise SystemExit(f"the reference was not accepted on {device}: {verdict.tests}")
    return first[0]


def pool_figures(report: Report, problem, options, device: str, judges: int) -> None:
    gpu_index = 0 if device == "cuda" else None
    pool = WarmPool(options, size=2, gpu_index=gpu_index)
    cache = ReferenceCache()
    try:
        if not pool.wait_full(600):
            raise SystemExit("the warm pool did not fill within 600 s")
        to_first_test_s(problem, options, device, cache, pool.start_harness)  # fills the reference cache
        pooled, cold = [], []
        for _ in range(judges):
            pool.wait_full(600)
            pooled.append(to_first_test_s(problem, options, device, cache, pool.start_harness))
            cold.append(to_first_test_s(problem, options, device, cache, Harness))
    finally:
        pool.close()
    report.figures["submit_to_first_test_s"] = {"pooled": pooled, "cold": cold}
    report.say(f"submit to first test, {problem.slug} sample tests on {device}, median of {judges}: "
               f"warm pool {statistics.median(pooled) * 1000:.0f} ms, cold start {statistics.median(cold) * 1000:.0f} ms")


def judge_reference_ms(problem, options, device: str, judges: int) -> list[float]:
    found = []
    for _ in range(judges):
        verdict = judge(problem, problem.source("reference.py"),
                        JudgeOptions(device=device, tests="all", sandbox=options, cache=ReferenceCache()))
        if verdict.verdict != "accepted" or verdict.time.reference_ms is None:
            raise SystemExit(f"the reference's timed judge failed: {verdict.verdict} {verdict.tests}")
        found.append(verdict.time.reference_ms)
    return found


def do_bench_ms(problem) -> float:
    """triton's median for the driver calling the reference on the timed test's inputs, in this process."""
    from triton.testing import do_bench

    timed = next(test for test in problem.tests if test.timed)
    for name in problem.modules:
        _module_from_source(Path(name).stem, problem.source(name).decode(), name)
    driver = _module_from_source("speed_driver", problem.source("driver.py").decode(), "driver.py")
    solution = _module_from_source("speed_solution", problem.source("reference.py").decode(), "reference.py")
    context = Context(torch.device("cuda"))
    generator = seeds.generator(seeds.sample_seed(problem.slug), timed.name, "speed")
    inputs = {name: tensor.to("cuda") for name, tensor in problem.checker.inputs(timed.params, generator).items()}
    return do_bench(lambda: driver.run(solution, timed.params, inputs, context), return_mode="median")


def timing_figures(report: Report, problem, options, judges: int) -> None:
    judged = judge_reference_ms(problem, options, "cuda", judges)
    median = statistics.median(judged)
    spread = (max(judged) - min(judged)) / median
    report.figures["judge_reference_ms"] = judged
    report.say(f"judge's time for the {problem.slug} reference (timed test), {judges} judges: median {median:.4f} ms, "
               f"min {min(judged):.4f}, max {max(judged):.4f}, spread {spread:.1%} of the median")
    try:
        triton_ms = do_bench_ms(problem)
    except ImportError as error:
        report.say(f"triton.testing.do_bench is not available here ({error}); comparison not made")
        return
    difference = abs(median - triton_ms) / triton_ms
    report.figures["do_bench_median_ms"] = triton_ms
    report.say(f"triton.testing.do_bench(return_mode='median') on the same call: {triton_ms:.4f} ms; the judge's "
               f"median differs by {difference:.1%}")
    report.say(f"target: the judge's time within {TARGET:.0%} of do_bench's: {difference:.1%}  {mark(difference <= TARGET)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cuda")
    parser.add_argument("--judges", type=int, default=5)
    parser.add_argument("--sandbox", choices=["auto", "bubblewrap", "plain"], default="auto")
    parser.add_argument("--bwrap")
    parser.add_argument("--setpriv")
    args = parser.parse_args()
    report = Report(args.out)
    options = SandboxOptions(mode=args.sandbox, bwrap=args.bwrap, setpriv=args.setpriv)
    problem = load_problem(PROBLEM)
    report.say(f"machine: {machine()}")
    if args.device == "cuda":
        seen = ", ".join(f"{gpu.uuid or 'no UUID'} at /dev/nvidia{gpu.minor}" for gpu in gpus.visible()) or "none"
        report.say(f"GPUs this process sees, in the judge's order (index 0 first): {seen}")
    try:
        pool_figures(report, problem, options, args.device, args.judges)
        if args.device == "cuda":
            timing_figures(report, problem, options, args.judges)
        else:
            report.say("the do_bench comparison needs CUDA; not made on the CPU")
    finally:
        report.save()


if __name__ == "__main__":
    main()
