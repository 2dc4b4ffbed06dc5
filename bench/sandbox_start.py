"""How long one sandbox takes from its start to ready (torch imported, first-use costs paid), forked from the
zygote and started cold, on the CPU.

    .venv/bin/python bench/sandbox_start.py --runs 20

Forked and cold starts take turns, `--runs` of each, one at a time, in this process (as a worker starts
them). Each is a `runner.client.Harness` with the default sandbox options, `zygote` on or off; start to ready
is the wall time from asking for it until its ready frame arrived, and the harness process's CPU time then is
read from outside (its /proc stat, whole ticks). The zygote's own start (the one `import torch` it saves each
later sandbox) comes first and is printed apart.

Target: forked, p50 start to ready at most 100 ms.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from runner.client import Harness  # noqa: E402
from runner.sandbox import SandboxOptions, procs  # noqa: E402
from stack import machine, mark, percentile  # noqa: E402

TARGET_MS = 100.0


def start_to_ready(options: SandboxOptions) -> tuple[float, float, str]:
    """Milliseconds from asking for a sandbox to its ready frame, its harness's CPU milliseconds by then, and the
    words that describe its isolation."""
    started = time.perf_counter()
    harness = Harness(options, memory_limit_bytes=4 << 30, threads=1, gpu_index=None)
    try:
        harness.wait_ready()
        elapsed = (time.perf_counter() - started) * 1000
        own, _ = procs.stat_clocks_ns(harness.harness_pid, harness._view) or (0, 0)
        return elapsed, own / 1e6, harness.sandbox
    finally:
        harness.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    forked, cold = SandboxOptions(), replace(SandboxOptions(), zygote=False)
    zygote_ms, _, words = start_to_ready(forked)
    found: dict[str, list[tuple[float, float]]] = {"forked from the zygote": [], "cold": []}
    for _ in range(args.runs):
        for name, options in (("forked from the zygote", forked), ("cold", cold)):
            elapsed, cpu, _ = start_to_ready(options)
            found[name].append((elapsed, cpu))
    print(f"machine: {machine()}")
    print(f"sandbox: {words}; {args.runs} starts each, taking turns")
    print(f"first start, the zygote's included: {zygote_ms:.1f} ms")
    print(f"{'start':24} {'ready p50 ms':>13} {'ready p95 ms':>13} {'harness CPU p50 ms':>19}")
    for name, rows in found.items():
        ready = [row[0] for row in rows]
        print(f"{name:24} {percentile(ready, 50):13.1f} {percentile(ready, 95):13.1f} "
              f"{percentile([row[1] for row in rows], 50):19.1f}")
    p50 = percentile([row[0] for row in found["forked from the zygote"]], 50)
    print(f"target: forked, p50 start to ready <= {TARGET_MS:.0f} ms: {p50:.1f} ms  {mark(p50 <= TARGET_MS)}")


if __name__ == "__main__":
    main()
