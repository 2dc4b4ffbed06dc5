"""Run on the default install against the Redis path: submit-to-verdict through the API, and an idle worker's CPU.

    .venv/bin/python bench/run_latency.py [--runs 20] [--idle 30] [--problem mhsa]

Starts the stack twice from this checkout, in production mode, gunicorn (two sync workers) and one Celery
worker with one pool process and its warm pool of 2 each time:

- the default install, as `./scripts/run.sh` runs it: a SQLite file and the embedded queue (a folder of
  message files), both in a temporary folder of the benchmark's own;
- the Redis path: a PostgreSQL database `interview_bench_run` (created, dropped at the end) and Redis
  database 11 (emptied).

Once the worker is ready and its pool full, it sits idle for `--idle` seconds while the CPU time of its
whole process tree (the main process, its pool process and the warm sandboxes) is read from /proc: the share of
one core an idle worker costs. Then `--runs` submissions of the problem's reference on the sample tests ("Run"),
one at a time, each once the warm pool is full again (as a person pressing Run finds it). Latency is read from
server-side timestamps, as bench/submit_latency.py does: from the moment before the POST to its judgement's
`finished_at`; the submission's `created_at` and the judgement's `started_at` split it into the POST, the wait
for the worker (the broker and its pick-up) and the judge.

Targets: on the default install, p50 at most 400 ms and within 100 ms of the Redis path's p50; an idle worker
under 2 % of one core.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interview.api_client import ApiClient  # noqa: E402
from stack import (ROOT, Database, Stack, machine, mark, percentile, redis_database,  # noqa: E402
                   submission_times, wait_until)

REDIS_DB = 11
P50_TARGET_MS = 400.0
BEYOND_REDIS_TARGET_MS = 100.0
IDLE_TARGET = 0.02


class SqliteDatabase:
    """The default install's database: a SQLite file in the benchmark's folder, deleted with it."""

    def __init__(self, path: Path):
        self.path = path
        self.url = f"sqlite:///{path}"

    def submission_times(self, ids: list[int]) -> dict[int, dict]:
        def epoch(stamp: str) -> float:
            return datetime.fromisoformat(stamp).replace(tzinfo=timezone.utc).timestamp()

        with sqlite3.connect(self.path) as connection:
            rows = connection.execute(
                f"SELECT s.id, s.created_at, j.started_at, j.finished_at, j.verdict FROM interview_submission s "
                f"JOIN interview_judgement j ON j.id = s.judgement_id WHERE s.id IN ({','.join('?' * len(ids))})",
                ids).fetchall()
        return {row[0]: {"created": epoch(row[1]), "started": epoch(row[2]), "finished": epoch(row[3]),
                         "verdict": row[4]} for row in rows}


def cpu_seconds(root_pid: int) -> tuple[float, float]:
    """User and system CPU time of a process alone, and of it with every live descendant, from /proc."""
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    ticks = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                # The command name, in parentheses, may hold spaces: the fields that follow it are fixed.
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry)
        children.setdefault(int(fields[1]), []).append(pid)
        times[pid] = (int(fields[11]) + int(fields[12])) / ticks
    total, pending = 0.0, [root_pid]
    while pending:
        pid = pending.pop()
        total += times.get(pid, 0.0)
        pending.extend(children.get(pid, []))
    return times.get(root_pid, 0.0), total


def idle_shares(pid: int, seconds: float) -> tuple[float, float]:
    """The share of one core the worker's main process (the one that waits on the queue), and its whole tree,
    used while nothing was sent to it."""
    begin, started = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    end, elapsed = cpu_seconds(pid), time.monotonic() - started
    return (end[0] - begin[0]) / elapsed, (end[1] - begin[1]) / elapsed


def measure(stack: Stack, times_of, *, problem: str, runs: int, idle_s: float) -> dict:
    source = (ROOT / "problems" / problem / "reference.py").read_text()
    try:
        stack.prepare()
        api = ApiClient(stack.web(workers=2), stack.api_tokens(1)[0])
        worker = stack.worker(name="worker", concurrency=1)
        # Settled first: the pool's sandboxes start under SCHED_IDLE, and the self-check's reference results
        # may still be written.
        time.sleep(5)
        idle_main, idle_tree = idle_shares(worker.pid, idle_s)
        found: dict = {"idle_main": idle_main, "idle_tree": idle_tree, "latency": [], "wait": [], "judge": []}
        for _ in range(runs):
            fills = stack.pool_fills("worker")
            sent = time.time()
            submission_id = api.submit(problem, source, tests="sample")
            api.wait_judged(submission_id, interval_s=0.05)
            row = times_of([submission_id])[submission_id]
            if row["verdict"] != "accepted":
                raise SystemExit(f"the reference was not accepted: {row}")
            found["latency"].append((row["finished"] - sent) * 1000)
            found["wait"].append((row["started"] - row["created"]) * 1000)
            found["judge"].append((row["finished"] - row["started"]) * 1000)
            wait_until(lambda: stack.pool_fills("worker") > fills, timeout=300, what="the worker's pool to refill")
        return found
    finally:
        stack.close()


def show(title: str, found: dict) -> None:
    labels = {"latency": "submit to verdict", "wait": "created -> started (broker, pick-up)",
              "judge": "started -> finished (judge, writes)"}
    print(title)
    for name, label in labels.items():
        print(f"  {label:38} p50 {percentile(found[name], 50):8.1f} ms   p95 {percentile(found[name], 95):8.1f} ms")
    print(f"  {'idle worker, share of one core':38} {found['idle_main'] * 100:8.2f} % main process, "
          f"{found['idle_tree'] * 100:.2f} % with its pool and sandboxes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--idle", type=float, default=30.0, help="seconds the idle worker is watched")
    parser.add_argument("--problem", default="mhsa")
    args = parser.parse_args()
    settings = {"JUDGE_RATE_LIMIT_PER_MINUTE": "100000", "JUDGE_MAX_QUEUED_PER_USER": "100"}
    with tempfile.TemporaryDirectory(prefix="bench-run-") as folder:
        sqlite = SqliteDatabase(Path(folder) / "db.sqlite3")
        default = measure(Stack(database=sqlite, redis_url=None, log_dir=Path(folder) / "default", **settings),
                          sqlite.submission_times, problem=args.problem, runs=args.runs, idle_s=args.idle)
        database = Database("interview_bench_run").create()
        try:
            redis = measure(Stack(database=database, redis_url=redis_database(REDIS_DB),
                                  log_dir=Path(folder) / "redis", **settings),
                            lambda ids: submission_times(database, ids), problem=args.problem, runs=args.runs,
                            idle_s=args.idle)
        finally:
            database.drop()
            redis_database(REDIS_DB)
    print(f"machine: {machine()}")
    print(f"stack: gunicorn (2 sync workers), one Celery worker process with a warm pool of 2; {args.problem} "
          f"reference, sample tests, {args.runs} runs one at a time; idle watched {args.idle:.0f} s")
    show("default install (SQLite, the embedded folder queue):", default)
    show("Redis path (PostgreSQL, Redis):", redis)
    p50 = percentile(default["latency"], 50)
    beyond = p50 - percentile(redis["latency"], 50)
    print(f"target: default install p50 <= {P50_TARGET_MS:.0f} ms: {p50:.1f} ms  {mark(p50 <= P50_TARGET_MS)}")
    print(f"target: default install p50 minus Redis p50 <= {BEYOND_REDIS_TARGET_MS:.0f} ms: {beyond:.1f} ms  "
          f"{mark(beyond <= BEYOND_REDIS_TARGET_MS)}")
    print(f"target: idle worker on the default install < {IDLE_TARGET * 100:.0f} % of one core: "
          f"{default['idle_tree'] * 100:.2f} %  {mark(default['idle_tree'] < IDLE_TARGET)}")


if __name__ == "__main__":
    main()
