"""Throughput: submissions judged per minute by one worker process and by two, and the CPU they used.

    .venv/bin/python bench/throughput.py [--submissions 40]

Starts its own stack from this checkout (a PostgreSQL database `interview_bench_throughput`, created and
dropped; Redis database 12; gunicorn; production mode), then, for one and for two worker processes (a Celery
worker with --concurrency 1, then 2; each judge uses one torch thread, each pool process keeps its own warm
pool of 2), sends `--submissions` submissions of the mhsa reference solution (sample tests) at once, from as
many users, and waits for every verdict. Throughput is the count over the time from the first judge's start
to the last one's finish (server-side timestamps); CPU utilisation is the share of both cores busy over the
same span (/proc/stat), whatever used it. The same is then done with cold starts only (JUDGE_POOL_SIZE=0).

Target: two worker processes judge at least 1.6x what one does (with the warm pool, as deployed).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from interview.api_client import ApiClient  # noqa: E402
from stack import (ROOT, CpuMeter, Database, Stack, machine, mark, redis_database,  # noqa: E402
                   submission_times)

PROBLEM = "mhsa"
SOURCE = (ROOT / "problems" / PROBLEM / "reference.py").read_text()
TARGET_RATIO = 1.6
REDIS_DB = 12


def burst(stack: Stack, apis: list[ApiClient], database: Database) -> dict:
    """Every api submits once, at once; the figures of the whole burst once all are judged."""
    sent, lock = [], threading.Lock()

    def submit(api: ApiClient) -> None:
        submission_id = api.submit(PROBLEM, SOURCE, tests="sample")
        with lock:
            sent.append((api, submission_id))

    meter = CpuMeter().start()
    started = time.time()
    threads = [threading.Thread(target=submit, args=(api,)) for api in apis]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for api, submission_id in sent:
        api.wait_judged(submission_id, interval_s=0.5)
    busy = meter.stop()
    ids = [submission_id for _, submission_id in sent]
    times = submission_times(database, ids)
    if {row["verdict"] for row in times.values()} != {"accepted"}:
        raise SystemExit(f"not every submission was accepted: {times}")
    first = min(row["started"] for row in times.values())
    last = max(row["finished"] for row in times.values())
    return {"count": len(ids), "seconds": last - first, "per_minute": len(ids) / (last - first) * 60,
            "cpu": busy, "wall": time.time() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=40)
    args = parser.parse_args()
    database = Database("interview_bench_throughput").create()
    stack = Stack(database=database, redis_url=redis_database(REDIS_DB),
                  log_dir=Path(tempfile.mkdtemp(prefix="bench-throughput-")),
                  JUDGE_RATE_LIMIT_PER_MINUTE="100000", JUDGE_MAX_QUEUED_PER_USER="100")
    results = {}
    try:
        stack.prepare()
        tokens = stack.api_tokens(args.submissions)
        base = stack.web(workers=2)
        apis = [ApiClient(base, token) for token in tokens]
        for pool_size in (2, 0):
            for processes in (1, 2):
                worker = stack.worker(name=f"worker-{pool_size}-{processes}", concurrency=processes,
                                      pool_size=pool_size)
                results[pool_size, processes] = burst(stack, apis, database)
                stack.stop(worker)
    finally:
        stack.close()
        database.drop()
        redis_database(REDIS_DB)
    print(f"machine: {machine()}")
    print(f"{args.submissions} submissions of the {PROBLEM} reference (sample tests) sent at once; one torch thread "
          f"per judge; the span is the first judge's start to the last one's finish")
    print(f"{'sandboxes':24} {'processes':>9} {'judged/min':>11} {'span s':>8} {'CPU busy (2 cores)':>19}")
    for (pool_size, processes), found in results.items():
        label = f"warm pool of {pool_size}" if pool_size else "cold starts only"
        print(f"{label:24} {processes:9d} {found['per_minute']:11.1f} {found['seconds']:8.1f} {found['cpu']:18.0%}")
    for pool_size in (2, 0):
        ratio = results[pool_size, 2]["per_minute"] / results[pool_size, 1]["per_minute"]
        label = "warm pool" if pool_size else "cold starts"
        verdict = f"  {mark(ratio >= TARGET_RATIO)}" if pool_size else ""
        print(f"{'target: ' if pool_size else '        '}two processes / one, {label}: {ratio:.2f}x"
              f"{f' (at least {TARGET_RATIO}x)' if pool_size else ''}{verdict}")


if __name__ == "__main__":
    main()
