"""Submit-to-verdict latency through the real path: HTTP API -> PostgreSQL -> Redis -> Celery worker -> sandbox.

    .venv/bin/python bench/submit_latency.py [--runs 20] [--submitters 20] [--rounds 3]

Starts its own stack from this checkout: a PostgreSQL database `interview_bench_latency` (created, loaded by
sync_content, dropped at the end), Redis database 13 (emptied), gunicorn (two sync workers) and one Celery
worker with one pool process (concurrency 1) and its warm pool (JUDGE_POOL_SIZE=3, the default), all in production mode.
Every submission is the mhsa reference solution on the sample tests ("Run"), sent with an API token.

- One submitter: `--runs` submissions, one at a time, each sent once the worker's warm pool is full again
  (as a person pressing Run finds it). After each verdict, the same judge runs in this process through
  `runner.judge` with a warm pool of its own: the judge latency of this run, measured beside it.
- `--submitters` concurrent submitters (one user each), `--rounds` submissions each, each sent as soon as the
  submitter's previous verdict is in: the same worker, now with a queue.

Latency is read from server-side timestamps, so polling granularity does not enter it: from the moment
before the POST is sent (this process's clock) to its judgement's `finished_at` (the worker's clock, the same
host), the write that makes the verdict visible. The submission's `created_at` and the judgement's
`started_at` split it into the POST, the wait for a worker (broker and pick-up), and the judge with its
database writes.

Target: p50 submit-to-verdict minus p50 judge latency (what HTTP, the database, the broker and the worker's
pick-up cost) at most 150 ms, one submitter.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interview.api_client import ApiClient  # noqa: E402
from stack import (ROOT, Database, Stack, machine, mark, percentile, redis_database,  # noqa: E402
                   submission_times, wait_until)

PROBLEM = "mhsa"
SOURCE = (ROOT / "problems" / PROBLEM / "reference.py").read_text()
TARGET_MS = 150.0
REDIS_DB = 13


class LocalJudge:
    """runner.judge in this process with a warm pool of its own: the judge latency to subtract."""

    def __init__(self):
        from runner import SandboxOptions, load_problem
        from runner.cache import ReferenceCache
        from runner.pool import WarmPool

        self.problem, self.options, self.cache = load_problem(PROBLEM), SandboxOptions(), ReferenceCache()
        self.pool = WarmPool(self.options, size=2)
        self.run_ms()  # the reference cache fills, as the worker's did during its self-check

    def run_ms(self) -> float:
        from runner import JudgeOptions, judge

        if not self.pool.wait_full(300):
            raise SystemExit("this process's warm pool did not fill")
        started = time.perf_counter()
        verdict = judge(self.problem, SOURCE, JudgeOptions(device="cpu", tests="sample", cache=self.cache,
                                                           sandbox=self.options,
                                                           start_harness=self.pool.start_harness))
        elapsed = (time.perf_counter() - started) * 1000
        assert verdict.verdict == "accepted", verdict.tests
        return elapsed


def one_submitter(stack: Stack, api: ApiClient, local: LocalJudge, runs: int) -> tuple[list[dict], list[float]]:
    sent, judged_here = [], []
    for _ in range(runs):
        fills = stack.pool_fills("worker")
        before = time.time()
        submission_id = api.submit(PROBLEM, SOURCE, tests="sample")
        posted = time.time()
        api.wait_judged(submission_id)
        sent.append({"id": submission_id, "sent": before, "posted": posted})
        judged_here.append(local.run_ms())
        wait_until(lambda: stack.pool_fills("worker") > fills, timeout=300, what="the worker's pool to refill")
    return sent, judged_here


def many_submitters(apis: list[ApiClient], rounds: int) -> list[dict]:
    sent, lock = [], threading.Lock()

    def submitter(api: ApiClient) -> None:
        for _ in range(rounds):
            before = time.time()
            submission_id = api.submit(PROBLEM, SOURCE, tests="sample")
            posted = time.time()
            api.wait_judged(submission_id, interval_s=0.2)
            with lock:
                sent.append({"id": submission_id, "sent": before, "posted": posted})

    threads = [threading.Thread(target=submitter, args=(api,)) for api in apis]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sent


def figures(database: Database, sent: list[dict]) -> dict[str, list[float]]:
    times = submission_times(database, [entry["id"] for entry in sent])
    wrong = {times[entry["id"]]["verdict"] for entry in sent} - {"accepted"}
    if wrong:
        raise SystemExit(f"a submission was not accepted: {wrong}")
    found: dict[str, list[float]] = {"latency": [], "post": [], "wait": [], "judge": []}
    for entry in sent:
        row = times[entry["id"]]
        found["latency"].append((row["finished"] - entry["sent"]) * 1000)
        found["post"].append((entry["posted"] - entry["sent"]) * 1000)
        found["wait"].append((row["started"] - row["created"]) * 1000)
        found["judge"].append((row["finished"] - row["started"]) * 1000)
    return found


def show(title: str, found: dict[str, list[float]]) -> None:
    labels = {"latency": "submit to verdict", "post": "POST round trip (client)",
              "wait": "created -> started (broker, pick-up, queue)", "judge": "started -> finished (judge, writes)"}
    print(title)
    for name, label in labels.items():
        print(f"  {label:44} p50 {percentile(found[name], 50):8.1f} ms   p95 {percentile(found[name], 95):8.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--submitters", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    database = Database("interview_bench_latency").create()
    stack = Stack(database=database, redis_url=redis_database(REDIS_DB),
                  log_dir=Path(tempfile.mkdtemp(prefix="bench-latency-")),
                  JUDGE_RATE_LIMIT_PER_MINUTE="100000", JUDGE_MAX_QUEUED_PER_USER="100")
    local = None
    try:
        stack.prepare()
        tokens = stack.api_tokens(max(1, args.submitters))
        base = stack.web(workers=2)
        stack.worker(name="worker", concurrency=1)
        local = LocalJudge()
        single, judged_here = one_submitter(stack, ApiClient(base, tokens[0]), local, args.runs)
        crowd = many_submitters([ApiClient(base, token) for token in tokens[:args.submitters]], args.rounds)
        single_figures, crowd_figures = figures(database, single), figures(database, crowd)
    finally:
        if local is not None:
            local.pool.close()
        stack.close()
        database.drop()
        redis_database(REDIS_DB)
    print(f"machine: {machine()}")
    print(f"stack: gunicorn (2 sync workers), PostgreSQL, Redis, one Celery worker process with a warm pool of 3; "
          f"{PROBLEM} reference, sample tests; latency from server-side timestamps (no polling in it)")
    show(f"one submitter, {args.runs} submissions:", single_figures)
    print(f"  {'runner.judge in this process (warm pool)':44} p50 {percentile(judged_here, 50):8.1f} ms   "
          f"p95 {percentile(judged_here, 95):8.1f} ms")
    show(f"{args.submitters} concurrent submitters, {args.rounds} submissions each, one worker process:", crowd_figures)
    beyond = percentile(single_figures["latency"], 50) - percentile(judged_here, 50)
    print(f"target: one submitter, p50 submit-to-verdict minus p50 judge latency <= {TARGET_MS:.0f} ms: "
          f"{beyond:.1f} ms  {mark(beyond <= TARGET_MS)}")


if __name__ == "__main__":
    main()
