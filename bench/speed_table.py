"""The speed table: every problem's Run and Submit through the API, cached and uncached, beside the same tests
run in this process, on the default install and on PostgreSQL + Redis.

    .venv/bin/python bench/speed_table.py [--runs 10] [--problems mhsa,rope] [--stacks default,redis] [--failing]

Each stack is started from this checkout in production mode, as bench/run_latency.py starts it: gunicorn (two
sync workers) and one Celery worker with one pool process and its warm pool of 3; the default install on a
SQLite file and the embedded folder queue, the Redis path on a PostgreSQL database of its own and Redis
database 14. For each problem, its reference, one submission at a time, each sent once the worker's warm pool
is full again (as a person pressing a button finds it):

- Run (sample tests), `--runs` + 1 submissions. The sample tests' inputs are fixed, so the first Run of a
  problem computes the reference's results (uncached) and every later one finds them in the worker's cache.
- Submit (all tests), `--runs` submissions, each drawing its hidden seed: uncached, unless an earlier one drew
  the same seed (counted, and left out of the uncached figures). Each is judged again at once through the
  admin's re-judge, which keeps the seed it drew, so the worker holds the reference's results: the cached
  figures, from the moment the re-judge is queued to its verdict (the POST, a few milliseconds, is the only
  part of a Submit this leaves out). At once, because the worker's caches are bounded by bytes: re-judged
  after nine other seeds, cross-entropy's float64 truths (131 MB for one 512 x 32,000 gradient) are gone.
- With `--failing`, a failing Submit too: the problem's first known-wrong solution declaring each of a wrong
  answer, a runtime error and a time verdict (bench/wrong_latency.py's choice), `--runs` Submits each, every
  one judged again at once through the re-judge, as the reference's are.
- In-process: the same tests with no sandbox, queue or database (bench/judge_overhead.py's InProcess: inputs
  drawn, the reference called through the problem's driver and checked, a timed test's rounds), `--runs` times
  in this process; the physical floor of a judge. Distributed problems have none (their ranks need processes).

Latency is read from server-side timestamps (bench/stack.py): from the moment before the POST (or the re-judge)
to its judgement's `finished_at`. Targets: Submit at most 3 s at p50 with the reference's results cached and at most
5 s uncached; Submit at most 1.5x its in-process time; a failing Submit cached at most 3 s at p50 for a wrong
answer or a runtime error, and within the problem's `wall_s` plus 1 s for a time verdict. Everything printed
also goes to --out when given.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interview.api_client import ApiClient  # noqa: E402
from judge_overhead import InProcess  # noqa: E402
from run_latency import SqliteDatabase  # noqa: E402
from runner import list_problems  # noqa: E402
from runner.verdict import TIME_LIMIT_EXCEEDED  # noqa: E402
from stack import ROOT, Database, Stack, machine, mark, percentile, redis_database, wait_until  # noqa: E402
from wrong_latency import TARGET_S as FAILING_TARGET_S, VERDICTS, first_declaring  # noqa: E402

REDIS_DB = 14
CACHED_TARGET_S, UNCACHED_TARGET_S, RATIO_TARGET = 3.0, 5.0, 1.5
SETTINGS = {"JUDGE_RATE_LIMIT_PER_MINUTE": "100000", "JUDGE_MAX_QUEUED_PER_USER": "100"}


class Rows:
    """The submissions' rows, read straight from the stack's database: their current judgement's finished_at
    (seconds since the epoch) and verdict, none while judged again, and the hidden seed drawn."""

    def __init__(self, *, sqlite_path: Path | None = None, database: Database | None = None):
        self.sqlite_path, self.database = sqlite_path, database

    def read(self, submission_id: int) -> dict | None:
        query = ("SELECT j.finished_at, j.verdict, s.seed_index FROM interview_submission s "
                 "LEFT JOIN interview_judgement j ON j.id = s.judgement_id WHERE s.id = ")
        if self.sqlite_path:
            with sqlite3.connect(self.sqlite_path) as connection:
                row = connection.execute(query + "?", (submission_id,)).fetchone()
            finished = row and row[0] and datetime.fromisoformat(row[0]).replace(tzinfo=timezone.utc).timestamp()
        else:
            import psycopg

            with psycopg.connect(self.database.url) as connection:
                row = connection.execute(query + "%s", (submission_id,)).fetchone()
            finished = row and row[0] and row[0].timestamp()
        return {"finished": finished, "verdict": row[1], "seed": row[2]} if row else None


def one_at_a_time(stack: Stack, rows: Rows, send, expected: str = "accepted") -> tuple[float, int, int | None]:
    """send() -> (submission id, the moment it was sent), once the worker's warm pool is full; the latency in
    seconds to its verdict (which must be expected), the id and the hidden seed it drew."""
    fills = stack.pool_fills("worker")
    submission_id, sent = send()

    def judged():
        row = rows.read(submission_id)
        return row if row and row["verdict"] and row["finished"] else None

    row = wait_until(judged, timeout=900, what=f"submission {submission_id}'s verdict", interval=0.05)
    if row["verdict"] != expected:
        raise SystemExit(f"submission {submission_id} was not judged {expected}: {row}")
    wait_until(lambda: stack.pool_fills("worker") > fills, timeout=300, what="the worker's pool to refill")
    return row["finished"] - sent, submission_id, row["seed"]


def rejudge(stack: Stack, submission_id: int) -> tuple[int, float]:
    """Queue the submission again, as the admin's re-judge does (its last judgement kept as history, none current
    until the new one ends); when it was queued."""
    output = stack.shell(
        "import time\n"
        "from interview.models import Submission\n"
        "from interview.services.submissions import submissions_rejudge\n"
        "queued = time.time()\n"
        f"assert submissions_rejudge(submissions=Submission.objects.filter(pk={submission_id})) == 1\n"
        "print('QUEUED', queued)\n")
    return submission_id, float(next(line.split()[1] for line in output.splitlines() if line.startswith("QUEUED")))


def submits(stack: Stack, rows: Rows, post, runs: int, expected: str) -> tuple[list[float], list[float], int]:
    """runs Submits of one source, each judged again at once: the uncached latencies (a seed drawn before left
    out), the cached ones, and how many seeds repeated."""
    seen, uncached, cached = set(), [], []
    for _ in range(runs):
        latency, submission_id, seed = one_at_a_time(stack, rows, lambda: post("all"), expected)
        if seed not in seen:
            uncached.append(latency)
        seen.add(seed)
        cached.append(one_at_a_time(stack, rows, lambda i=submission_id: rejudge(stack, i), expected)[0])
    return uncached, cached, runs - len(uncached)


def measure_stack(stack: Stack, rows: Rows, slugs: list[str], runs: int, failing: bool = False) -> dict:
    found = {}
    try:
        stack.prepare()
        api = ApiClient(stack.web(workers=2), stack.api_tokens(1)[0])
        stack.worker(name="worker", concurrency=1)
        for slug in slugs:
            def poster(source, slug=slug):
                def post(tests):
                    sent = time.time()
                    return api.submit(slug, source, tests=tests), sent
                return post

            post = poster((ROOT / "problems" / slug / "reference.py").read_text())
            run = [one_at_a_time(stack, rows, lambda: post("sample"))[0] for _ in range(runs + 1)]
            uncached, cached, repeated = submits(stack, rows, post, runs, "accepted")
            found[slug] = {"run uncached": run[:1], "run cached": run[1:], "submit uncached": uncached,
                           "submit cached": cached, "repeated seeds": repeated, "failing": {}}
            print(f"  {stack.log_dir.name} {slug}: Run {percentile(run[1:], 50):.2f} s, Submit "
                  f"{percentile(uncached, 50):.2f} s uncached, {percentile(cached, 50):.2f} s cached", flush=True)
            problem = next(p for p in list_problems() if p.slug == slug)
            for expected in VERDICTS if failing else ():
                path = first_declaring(problem, expected)
                if path is None:
                    continue
                uncached, cached, _ = submits(stack, rows, poster(path.read_text()), runs, expected)
                found[slug]["failing"][expected] = {"solution": path.name, "uncached": uncached, "cached": cached}
                print(f"  {stack.log_dir.name} {slug} {path.name}: Submit {percentile(uncached, 50):.2f} s uncached, "
                      f"{percentile(cached, 50):.2f} s cached", flush=True)
        return found
    finally:
        stack.close()


def in_process(slugs: list[str], runs: int) -> dict[str, dict[str, list[float] | None]]:
    """Seconds per Run and per Submit of each problem's tests in this process; None for distributed problems."""
    found = {}
    for slug in slugs:
        problem = next(p for p in list_problems() if p.slug == slug)
        if problem.world_size > 1:
            found[slug] = {"sample": None, "all": None}
            continue
        inside = InProcess(problem)
        inside.run_ms("all")  # first-use costs are the process's, not the tests'
        found[slug] = {which: [inside.run_ms(which) / 1000 for _ in range(runs)] for which in ("sample", "all")}
    return found


def table(results: dict, inside: dict, slugs: list[str]) -> list[str]:
    lines = []
    for stack_name, found in results.items():
        lines.append(f"{stack_name}: seconds, p50 / p95 (x: p50 over the in-process p50)")
        lines.append(f"  {'problem':20} {'in-process run':>15} {'run cached':>17} {'run 1st':>8} {'in-process all':>15} "
                     f"{'submit cached':>17} {'x':>5} {'submit uncached':>17} {'x':>5}")
        for slug in slugs:
            figures, floor = found[slug], inside[slug]

            def both(values):
                return f"{percentile(values, 50):7.2f} / {percentile(values, 95):6.2f}" if values else f"{'-':>17}"

            def over(values, which):
                if not values or floor[which] is None:
                    return f"{'-':>5}"
                return f"{percentile(values, 50) / percentile(floor[which], 50):5.1f}"

            floors = [f"{percentile(floor[which], 50):15.3f}" if floor[which] else f"{'-':>15}"
                      for which in ("sample", "all")]
            lines.append(f"  {slug:20} {floors[0]} {both(figures['run cached'])} {figures['run uncached'][0]:8.2f} "
                         f"{floors[1]} {both(figures['submit cached'])} {over(figures['submit cached'], 'all')} "
                         f"{both(figures['submit uncached'])} {over(figures['submit uncached'], 'all')}")
        misses = [(slug, figures) for slug, figures in found.items()]
        cached_ok = all(percentile(f["submit cached"], 50) <= CACHED_TARGET_S for _, f in misses)
        uncached_ok = all(not f["submit uncached"] or percentile(f["submit uncached"], 50) <= UNCACHED_TARGET_S
                          for _, f in misses)
        lines.append(f"  target: every Submit p50 <= {CACHED_TARGET_S:.0f} s cached: {mark(cached_ok)}; "
                     f"<= {UNCACHED_TARGET_S:.0f} s uncached: {mark(uncached_ok)}")
        ratios = [percentile(f["submit cached"], 50) / percentile(inside[slug]["all"], 50)
                  for slug, f in misses if inside[slug]["all"]]
        if ratios:
            lines.append(f"  target: Submit cached p50 <= {RATIO_TARGET}x in-process: worst {max(ratios):.1f}x  "
                         f"{mark(max(ratios) <= RATIO_TARGET)}")
        lines.extend(failing_rows(found, slugs))
    return lines


def failing_rows(found: dict, slugs: list[str]) -> list[str]:
    """The failing Submits of one stack, each against its target."""
    rows = [(slug, expected, figures) for slug in slugs for expected, figures in found[slug]["failing"].items()]
    if not rows:
        return []
    lines = [f"  failing Submits: {'problem':20} {'expected':21} {'submit cached':>17} {'submit uncached':>17} "
             f"{'target':>7}"]
    for slug, expected, figures in rows:
        problem = next(p for p in list_problems() if p.slug == slug)
        target = problem.limits.wall_s + 1 if expected == TIME_LIMIT_EXCEEDED else FAILING_TARGET_S
        both = [f"{percentile(figures[which], 50):7.2f} / {percentile(figures[which], 95):6.2f}" if figures[which]
                else f"{'-':>17}" for which in ("cached", "uncached")]
        met = percentile(figures["cached"], 50) <= target
        lines.append(f"  {'':17}{slug:20} {expected:21} {both[0]} {both[1]} {target:7.1f} {mark(met)}  "
                     f"{figures['solution']}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--problems", default="", help="comma-separated slugs (default: the whole catalogue)")
    parser.add_argument("--stacks", default="default,redis")
    parser.add_argument("--out", type=Path, help="a folder for speed-table.txt and speed-table.json")
    parser.add_argument("--failing", action="store_true",
                        help="also each problem's first known-wrong solution of each failing verdict")
    args = parser.parse_args()
    slugs = [s for s in args.problems.split(",") if s] or [p.slug for p in list_problems()]
    stacks = [s for s in args.stacks.split(",") if s]
    started = time.monotonic()
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-speed-") as folder:
        if "default" in stacks:
            sqlite = Path(folder) / "db.sqlite3"
            results["default install (SQLite, the embedded folder queue)"] = measure_stack(
                Stack(database=SqliteDatabase(sqlite), redis_url=None, log_dir=Path(folder) / "default", **SETTINGS),
                Rows(sqlite_path=sqlite), slugs, args.runs, args.failing)
        if "redis" in stacks:
            database = Database("interview_bench_speed").create()
            try:
                results["PostgreSQL + Redis"] = measure_stack(
                    Stack(database=database, redis_url=redis_database(REDIS_DB), log_dir=Path(folder) / "redis",
                          **SETTINGS), Rows(database=database), slugs, args.runs, args.failing)
            finally:
                database.drop()
                redis_database(REDIS_DB)
    inside = in_process(slugs, args.runs)
    lines = [f"machine: {machine()}",
             f"{args.runs} Submits and {args.runs + 1} Runs per problem, one at a time, its reference; "
             f"{time.monotonic() - started:.0f} s in all", *table(results, inside, slugs)]
    print("\n".join(lines))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "speed-table.txt").write_text("\n".join(lines) + "\n")
        (args.out / "speed-table.json").write_text(json.dumps({"results": results, "in_process": inside}, indent=1))


if __name__ == "__main__":
    main()
