"""A chaos soak: submissions through the real stack while its workers, its broker and its database connections
are broken under it; afterwards the database says whether anything was lost, stuck, judged twice or misjudged.

    .venv/bin/python bench/soak.py [--submissions 300] [--clients 10] [--kill-every 20] [--kills 0]
                                   [--problems stable-softmax,rmsnorm,moe-router,swiglu] [--out FILE]

Starts its own stack from this checkout: a PostgreSQL database `interview_bench_soak_<pid>` (created, loaded by
sync_content, dropped at the end), a redis-server of its own on a free port (no persistence, its own folder),
gunicorn and two Celery judge workers (one pool process and a warm pool of two each), in production mode. The
workers' content folder holds only the soak's problems, so their self-check at each start stays short.

`--clients` API clients, each its own account and token, send `--submissions` in all, one after another
without waiting for verdicts, each with an Idempotency-Key of its own: a 429 (the per-user rate limit or the
cap on queued submissions) is counted as refused and sent again after its Retry-After; a 5xx or a dropped
connection is counted and sent again with the same key, so a request that was committed before its answer was
lost is not created twice. Every submission is a solution file from `problems/<slug>/solutions/`, judged on
the sample tests, whose declared verdict (`# expect:`) does not depend on load (accepted, wrong_answer,
forbidden), each wrong one failing a sample test.

Faults, while submissions are being judged:
- every `--kill-every` seconds one worker's whole process group (main process, pool process, sandboxes) is
  SIGKILLed, as a crash would end it, preferably one in the middle of a judge's first attempt (never a later
  one: three deaths of its judge end a submission as an error by design), and started again at once;
  `--kills` caps how many (0: no cap);
- once 30 % of the submissions are judged, redis-server is stopped (SIGTERM) and started again on the same
  port; it keeps nothing, so every message queued or held is gone;
- once 60 % are judged, every connection of the app and the workers to the database is ended
  (pg_terminate_backend).

Recovery settings, shorter than production's so that a soak takes minutes (production: lease 60 s, sweep
every 10 s, queued grace 60 s, visibility timeout 2 h): JUDGE_LEASE_SECONDS `--lease` (15), JUDGE_SWEEP_SECONDS
2, JUDGE_QUEUED_GRACE_SECONDS `--grace` (10), and Redis's visibility timeout `--visibility-timeout` (10 s,
through a settings module of the soak's own that overrides CELERY_BROKER_TRANSPORT_OPTIONS and nothing else).
The message a killed worker held comes back through Redis (its visibility timeout) or through the sweep
(the lease ran out, the submission is queued again with a new message), whichever is first; for each kill the
soak reads from the workers' logs when each came and which message's judge finished the submission. A
redelivery that comes while the dead attempt's lease still runs finds the submission running and does nothing
(a repeated message takes only a queued submission), so with a visibility timeout shorter than the lease the
sweep's message is the one that judges it; with production's (2 h) the sweep's is the only one.

Checked from the database afterwards: every submission sent is there once, finished, with the verdict its file
declares; none lost (sent and not in the database), none stuck (still queued or running after the drain),
no duplicate results (one finish per submission in the workers' logs, one judgement per submission, one test
row per test), attempts
counted (each submission's attempts are one more than the times it was queued again after an attempt).
Prints the machine, the counts, the drain time, submissions per minute, p50/p95 submit-to-verdict, the faults
injected, how each killed worker's message came back, the soak's duration, and PASS or FAIL; exits 1 on FAIL.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner.problems import read_expectation  # noqa: E402
from stack import (PYTHON, ROOT, Database, Stack, free_port, machine, percentile,  # noqa: E402
                   wait_until)

PROBLEMS = ROOT / "problems"
DEFAULT_PROBLEMS = ("stable-softmax", "rmsnorm", "moe-router", "swiglu")
# Files whose declared verdict the sample tests give, whatever the load: each wrong one fails a sample test
# (or is refused before it runs); nothing here is judged by time or memory. Left out: files whose mistake only
# a hidden test shows (stable-softmax's view_assumes_contiguous and flatten_leading_dims, rmsnorm's
# uses_functional are accepted on the sample tests).
SOLUTIONS = {
    "stable-softmax": ("correct/logsumexp.py", "correct/movedim_detached_max.py", "correct/custom_autograd.py",
                       "wrong/ignores_dim.py", "wrong/naive_exp.py", "wrong/uses_functional.py"),
    "rmsnorm": ("correct/vector_norm.py", "correct/llama_style.py", "wrong/mean_over_all_elements.py",
                "wrong/eps_outside_sqrt.py", "wrong/returns_float32.py"),
    "moe-router": ("correct/argmax_rounds.py", "correct/dispatch_mask.py", "wrong/capacity_off_by_one.py",
                   "wrong/uses_topk.py", "wrong/ties_to_higher_index.py"),
    "swiglu": ("correct/einsum.py", "correct/manual_silu_matmul.py", "wrong/gate_up_swapped.py",
               "wrong/sigmoid_gate.py"),
}
SWEEP_SECONDS = 2
# How long a kill waits for a worker in the middle of a judge's first attempt before it takes an idle one: a
# sample-test judge is a few tenths of a second, so between two clients' submissions both workers can be idle
# for seconds (5 s once found none).
MID_JUDGE_WAIT_S = 15
REDIS_RESTART_AT, CONNECTION_DROP_AT = 0.3, 0.6
HOST = socket.gethostname()
# Celery's worker log: "[2026-12-01 23:15:08,123: INFO/MainProcess] Task interview.tasks.judge_submission[id] ..."
LINE = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): \w+/([\w-]+)\] (.*)$")
TASK = re.compile(r"Task [\w.]+\[([0-9a-f-]{36})\] (received|succeeded|failed|raised|retry)")


@dataclass
class Planned:
    index: int
    client: int
    slug: str
    path: str
    expected: str
    key: str
    source: str
    id: int | None = None
    sent: float | None = None  # this process's clock, just before the POST that was accepted


@dataclass
class Counts:
    refused: int = 0  # 429s, sent again
    failed_requests: int = 0  # 5xx answers and dropped connections, sent again with the same key
    replayed: int = 0  # answers that say an earlier request with the key made the submission
    gave_up: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str) -> None:
        with self.lock:
            setattr(self, name, getattr(self, name) + 1)


@dataclass
class Kill:
    worker: str
    at: float  # this process's clock
    submission: int | None = None  # the submission its pool process was judging
    attempt: int | None = None
    task: str | None = None  # the message it held


def plan(slugs: list[str], count: int, clients: int, run: str) -> list[Planned]:
    files = [(slug, path) for slug in slugs for path in SOLUTIONS[slug]]
    random.Random(20261201).shuffle(files)
    planned = []
    for index in range(count):
        slug, path = files[index % len(files)]
        source = (PROBLEMS / slug / "solutions" / path).read_text()
        expected, _ = read_expectation(source.encode())
        planned.append(Planned(index, index % clients, slug, path, expected, f"soak-{run}-{index}", source))
    return planned


def check_solutions(slugs: list[str]) -> None:
    """Every file the soak sends declares a verdict that load cannot change, and wrong ones fail a sample test."""
    for slug in slugs:
        sample = {test["name"] for test in tomllib.loads((PROBLEMS / slug / "problem.toml").read_text())["tests"]
                  if test.get("sample")}
        for path in SOLUTIONS[slug]:
            text = (PROBLEMS / slug / "solutions" / path).read_text()
            expected, _ = read_expectation(text.encode())
            assert expected in ("accepted", "wrong_answer", "runtime_error", "compile_error", "forbidden"), path
            fails_on = re.search(r"^# fails-on: (\S+)", text, re.M)
            assert not fails_on or fails_on.group(1) in sample, f"{slug}/{path} fails on a hidden test"


class RedisServer:
    """A redis-server of the soak's own: nothing persisted, so a restart loses every message."""

    def __init__(self, workdir: Path):
        self.port, self.workdir = free_port(), workdir
        self.process: subprocess.Popen | None = None
        workdir.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = open(self.workdir / "redis.log", "ab")
        self.process = subprocess.Popen(
            ["/usr/bin/redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)], stdout=log, stderr=subprocess.STDOUT)
        wait_until(self.answers, timeout=20, what=f"redis-server on port {self.port}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)
        self.process = None

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(16).startswith(b"+PONG")
        except OSError:
            return False


class Judges:
    """The two judge workers: started, SIGKILLed as a crash would end them, started again."""

    def __init__(self, stack: Stack, names: list[str], content: Path):
        self.stack, self.names, self.content = stack, names, content
        self.processes: dict[str, subprocess.Popen] = {}
        self.ready: dict[str, bool] = {name: False for name in names}
        self.starts = 0

    def start(self, name: str) -> None:
        """Start the worker and return once it consumes (its self-check passed, its log says ready)."""
        self.ready[name] = False
        before = self.stack.log(name).count("ready.")
        process = self.stack.start(name, [PYTHON, "-m", "celery", "-A", "interview", "worker", "--queues", "cpu",
                                          "--concurrency", "1", "--hostname", f"{name}@soak", "--without-mingle",
                                          "--without-gossip", "--loglevel", "INFO"],
                                   JUDGE_POOL_SIZE="3", DJANGO_LOG_LEVEL="INFO", PYTHONUNBUFFERED="1",
                                   INTERVIEW_CONTENT_DIR=str(self.content))
        self.processes[name] = process
        self.starts += 1

        def consuming() -> bool:
            if process.poll() is not None:
                raise SystemExit(f"worker {name} exited with {process.returncode}:\n{self.stack.log(name)[-4000:]}")
            return self.stack.log(name).count("ready.") > before

        wait_until(consuming, timeout=300, what=f"worker {name} to consume")
        self.ready[name] = True

    def start_all(self) -> None:
        threads = [threading.Thread(target=self.start, args=(name,)) for name in self.names]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if not all(self.ready.values()):
            raise SystemExit("a worker did not start")

    def pool_pids(self, name: str) -> list[int]:
        parent = self.processes[name].pid
        children = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
                    children.append(int(entry.name))
        return children

    def kill(self, database: Database, started: float) -> Kill | None:
        """SIGKILL the process group of a ready worker, one in the middle of a first attempt if one is within
        MID_JUDGE_WAIT_S, never one judging a later attempt; start it again in the background.

        Three deaths of its judge end a submission as an error by design (JUDGE_MAX_ATTEMPTS), so a soak that
        killed a retried judge again could fail a submission through its own cadence alone."""
        deadline = time.monotonic() + MID_JUDGE_WAIT_S
        while True:
            candidates = [name for name in self.names if self.ready[name]]
            if not candidates:
                return None
            for name in candidates:
                running = running_in(database, self.pool_pids(name))
                if (running and running[1] == 1) or (not running and time.monotonic() > deadline):
                    return self._kill(database, name, running, started)
            if time.monotonic() > deadline + 10:
                return None
            time.sleep(0.1)

    def _kill(self, database: Database, name: str, running: tuple[int, int] | None, started: float) -> Kill:
        process = self.processes[name]
        held = [match.group(1) for match in TASK.finditer(self.stack.log(name)) if match.group(2) == "received"]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        self.ready[name] = False
        if process in self.stack.processes:
            self.stack.processes.remove(process)
        kill = Kill(worker=name, at=time.time() - started)
        if running and still_running(database, *running):  # not finished between the look and the kill
            kill.submission, kill.attempt = running
            kill.task = held[-1] if held else None
        threading.Thread(target=self.start, args=(name,), daemon=True).start()
        return kill


def running_in(database: Database, pids: list[int]) -> tuple[int, int] | None:
    import psycopg

    if not pids:
        return None
    with psycopg.connect(database.url) as connection:
        row = connection.execute(
            "SELECT id, attempts FROM interview_submission WHERE status = 'running' AND worker = ANY(%s)",
            ([f"{HOST} pid {pid}" for pid in pids],)).fetchone()
    return (row[0], row[1]) if row else None


def still_running(database: Database, submission: int, attempt: int) -> bool:
    import psycopg

    with psycopg.connect(database.url) as connection:
        return bool(connection.execute("SELECT 1 FROM interview_submission WHERE id = %s AND status = 'running' "
                                       "AND attempts = %s", (submission, attempt)).fetchone())


def post(base: str, token: str, item: Planned, timeout: float = 60) -> tuple[int, dict, dict]:
    request = urllib.request.Request(
        f"{base}/api/problems/{item.slug}/submissions", method="POST",
        data=json.dumps({"source": item.source, "tests": "sample"}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 "Idempotency-Key": item.key})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"{}"), dict(response.headers)
    except urllib.error.HTTPError as error:
        body = error.read()
        try:
            parsed = json.loads(body or b"{}")
        except ValueError:
            parsed = {"body": body[:200].decode(errors="replace")}
        return error.code, parsed, dict(error.headers)


def client(base: str, token: str, items: list[Planned], counts: Counts, errors: list[str]) -> None:
    for item in items:
        for _ in range(2000):
            before = time.time()
            try:
                status, body, headers = post(base, token, item)
            except OSError:
                counts.add("failed_requests")
                time.sleep(0.5)
                continue
            if status == 201:
                item.id, item.sent = body["id"], before
                if headers.get("Idempotent-Replayed") == "true":
                    counts.add("replayed")
                break
            if status == 429:
                counts.add("refused")
                time.sleep(min(float(headers.get("Retry-After", 1)), 5))
            elif status >= 500:
                counts.add("failed_requests")
                time.sleep(0.5)
            else:
                errors.append(f"submission {item.key}: the API answered {status}: {body}")
                break
        else:
            counts.add("gave_up")


def progress(database: Database, ids: list[int]) -> int:
    """How many of these submissions are judged (finished or ended in an error)."""
    import psycopg

    if not ids:
        return 0
    with psycopg.connect(database.url) as connection:
        return connection.execute("SELECT count(*) FROM interview_submission WHERE id = ANY(%s) AND "
                                  "status IN ('finished', 'error')", (ids,)).fetchone()[0]


def drop_connections(database: Database) -> int:
    """End every connection to the soak's database but this one; how many."""
    import psycopg

    with psycopg.connect(database.url, autocommit=True) as connection:
        return connection.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone()[0]


def rows(database: Database, user_prefix: str) -> dict[str, dict]:
    """Every submission of the soak's users, by idempotency key, with its count of test rows."""
    import psycopg

    with psycopg.connect(database.url) as connection:
        found = connection.execute(
            "SELECT s.id, s.idempotency_key, s.status, j.verdict, s.attempts, s.deliveries, s.tests_total, "
            "extract(epoch FROM s.created_at), extract(epoch FROM j.finished_at), "
            "(SELECT count(*) FROM interview_judgementtest t WHERE t.judgement_id = s.judgement_id), "
            "(SELECT count(DISTINCT t.index) FROM interview_judgementtest t WHERE t.judgement_id = s.judgement_id), "
            "(SELECT count(*) FROM interview_judgement k WHERE k.submission_id = s.id) "
            "FROM interview_submission s JOIN auth_user u ON u.id = s.user_id "
            "LEFT JOIN interview_judgement j ON j.id = s.judgement_id WHERE u.username LIKE %s",
            (user_prefix + "%",)).fetchall()
    by_key: dict[str, dict] = {}
    for row in found:
        entry = {"id": row[0], "status": row[2], "verdict": row[3] or "", "attempts": row[4], "deliveries": row[5],
                 "tests_total": row[6], "created": float(row[7]), "finished": row[8] and float(row[8]),
                 "tests": row[9], "distinct_tests": row[10], "judgements": row[11], "copies": 1}
        if row[1] in by_key:
            by_key[row[1]]["copies"] += 1
        else:
            by_key[row[1]] = entry
    return by_key


@dataclass
class LogLine:
    at: float
    process: str
    text: str


def read_log(text: str) -> list[LogLine]:
    lines = []
    for line in text.splitlines():
        match = LINE.match(line)
        if match:
            at = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
            lines.append(LogLine(at, match.group(2), match.group(3)))
    return lines


def finishing_task(logs: dict[str, list[LogLine]], submission: int) -> str | None:
    """The message whose judge wrote this submission's verdict: the task its pool process reported next."""
    for lines in logs.values():
        for position, line in enumerate(lines):
            if line.text.startswith(f"Submission {submission} finished:"):
                for later in lines[position + 1:]:
                    task = TASK.search(later.text)
                    if later.process == line.process and task and task.group(2) != "received":
                        return task.group(1)
                return None
    return None


def recovery(kill: Kill, logs: dict[str, list[LogLine]], started_epoch: float) -> dict:
    """How the submission a killed worker was judging came back: when Redis redelivered the message the worker
    held (its visibility timeout), when the sweep queued it again with a new message (its lease ran out), and
    which of the two messages carried the judge that finished it."""
    killed_at = started_epoch + kill.at
    everything = sorted((line for lines in logs.values() for line in lines), key=lambda line: line.at)
    redelivered = next((line.at - killed_at for line in everything
                        if line.at > killed_at and kill.task and f"[{kill.task}] received" in line.text), None)
    swept = next((line.at - killed_at for line in everything if line.at > killed_at
                  and line.text.startswith(f"Submission {kill.submission} queued again after attempt {kill.attempt}:")
                  and "stopped renewing its lease" in line.text), None)
    finisher = finishing_task(logs, kill.submission)
    via = "broker" if finisher is not None and finisher == kill.task else "sweep" if swept is not None else "unknown"
    # A redelivery finds the submission running until its lease runs out and the sweep queues it again, so the
    # sweep brings it back whenever it did; Redis alone only if the worker died before it took the submission.
    back = "sweep" if swept is not None else "broker" if via == "broker" else "unknown"
    return {"redelivered_s": redelivered, "swept_s": swept, "via": via, "back": back}


def report_lines(args, counts: Counts, planned: list[Planned], found: dict[str, dict], logs_text: dict[str, str],
                 kills: list[Kill], faults: dict, timing: dict, errors: list[str],
                 started_epoch: float) -> tuple[list[str], bool]:
    logs = {name: read_log(text) for name, text in logs_text.items()}
    every_line = "\n".join(logs_text.values())
    lost = [item for item in planned if item.key not in found]
    judged = [(item, found[item.key]) for item in planned if item.key in found]
    stuck = [row for _, row in judged if row["status"] in ("queued", "running")]
    wrong = [(item, row) for item, row in judged if row["status"] not in ("queued", "running")
             and (row["status"], row["verdict"]) != ("finished", item.expected)]
    duplicates, miscounted = [], []
    for item, row in judged:
        finishes = every_line.count(f"Submission {row['id']} finished:")
        if (row["copies"] != 1 or finishes > 1 or row["tests"] != row["distinct_tests"] or row["judgements"] > 1
                or (row["status"] == "finished" and row["tests"] != row["tests_total"])):
            duplicates.append((item, row, finishes))
        requeued = len(re.findall(rf"Submission {row['id']} queued again after attempt \d+", every_line))
        if row["status"] == "finished" and row["attempts"] != 1 + requeued:
            miscounted.append((item, row, requeued))
    finished = [row for _, row in judged if row["status"] == "finished"]
    latencies = [row["finished"] - row["created"] for row in finished]
    last_sent = max((item.sent for item in planned if item.sent), default=float("nan"))
    first_sent = timing["first_post"]
    last_finished = max((row["finished"] for row in finished), default=float("nan"))
    retried = sum(1 for row in finished if row["attempts"] > 1)
    recoveries = [(kill, recovery(kill, logs, started_epoch)) for kill in kills if kill.submission is not None]
    verdicts: dict[str, int] = {}
    for item in planned:
        verdicts[item.expected] = verdicts.get(item.expected, 0) + 1
    passed = not (lost or stuck or wrong or duplicates or miscounted or errors or counts.gave_up)

    out = [f"machine: {machine()}",
           f"stack: PostgreSQL (a database of its own), redis-server (its own, port {faults['redis_port']}, no "
           f"persistence), gunicorn (3 sync workers), two Celery judge workers (one pool process, warm pool of 2); "
           f"lease {args.lease} s, sweep every {SWEEP_SECONDS} s, queued grace {args.grace} s, visibility timeout "
           f"{args.visibility_timeout} s (production: 60 s, 10 s, 60 s, 2 h)",
           f"load: {len(planned)} submissions (sample tests) from {args.clients} clients, each its own account, "
           f"over {len({(item.slug, item.path) for item in planned})} files of {len({item.slug for item in planned})} "
           f"problems ({', '.join(f'{name} {count}' for name, count in sorted(verdicts.items()))})",
           f"submitted {sum(1 for item in planned if item.id)}; refused (429) and sent again {counts.refused}; "
           f"failed requests (5xx, dropped connections) sent again with the same key {counts.failed_requests}, "
           f"{counts.replayed} of them already made; given up {counts.gave_up}",
           f"finished {len(finished)}; lost {len(lost)}; stuck {len(stuck)}; duplicates {len(duplicates)}; wrong "
           f"verdicts {len(wrong)}; attempts miscounted {len(miscounted)}; judged more than once (attempts > 1) "
           f"{retried}",
           f"drain time (last submission accepted to last verdict): {last_finished - last_sent:.1f} s",
           f"submissions per minute (first POST to last verdict): "
           f"{60 * len(finished) / max(1e-9, last_finished - first_sent):.1f}",
           f"submit to verdict (created to finished): p50 {percentile(latencies, 50):.2f} s, p95 "
           f"{percentile(latencies, 95):.2f} s",
           f"faults: worker SIGKILLs {len(kills)} ({sum(1 for kill in kills if kill.submission)} in the middle of a "
           f"judge), worker starts {faults['starts']}, Redis restarts {faults['redis_restarts']}, PostgreSQL "
           f"connection drops {faults['connection_drops']} ({faults['connections_ended']} connections ended)"]
    for number, (kill, how) in enumerate(recoveries, 1):
        swept = (f"the sweep queued it again after {how['swept_s']:.1f} s (its lease ran out)"
                 if how["swept_s"] is not None else "the sweep never queued it again")
        if how["redelivered_s"] is None:
            redelivered = "Redis did not redeliver the message it held"
        elif how["redelivered_s"] < (how["swept_s"] if how["swept_s"] is not None else float("inf")):
            redelivered = (f"Redis redelivered the message it held after {how['redelivered_s']:.1f} s, which "
                           "found it still running under the dead attempt's lease and did nothing")
        else:
            redelivered = f"Redis redelivered the message it held after {how['redelivered_s']:.1f} s"
        carried = {"broker": "Redis's redelivered message", "sweep": "the sweep's message",
                   "unknown": "a message the logs do not name"}[how["via"]]
        out.append(f"  kill {number}: {kill.worker} at {kill.at:.1f} s, judging submission {kill.submission} "
                   f"(attempt {kill.attempt}): {swept}; {redelivered}; judged again by {carried}")
    back = {name: sum(1 for _, how in recoveries if how["back"] == name) for name in ("sweep", "broker", "unknown")}
    carried = {name: sum(1 for _, how in recoveries if how["via"] == name) for name in ("broker", "sweep", "unknown")}
    early = sum(1 for _, how in recoveries if how["redelivered_s"] is not None
                and how["redelivered_s"] < (how["swept_s"] if how["swept_s"] is not None else float("inf")))
    out.append(f"killed workers' submissions brought back by: the sweep {back['sweep']}, Redis's visibility timeout "
               f"alone {back['broker']}, unknown {back['unknown']} (Redis redelivered {early} of the held messages "
               f"before the lease ran out, each finding its submission running and doing nothing); the judge that "
               f"finished them came from Redis's redelivered message {carried['broker']}, the sweep's "
               f"{carried['sweep']}, unknown {carried['unknown']}")
    out.append(f"duration: {timing['total']:.1f} s in all ({timing['setup']:.1f} s starting the stack, "
               f"{timing['load']:.1f} s of load and drain, {timing['teardown']:.1f} s stopping it)")
    for title, entries in (("lost", lost), ("stuck", stuck), ("wrong", wrong), ("duplicated", duplicates),
                           ("attempts miscounted", miscounted)):
        for entry in entries[:10]:
            out.append(f"  {title}: {entry}")
    out.extend(f"  error: {error}" for error in errors[:10])
    out.append(f"logs: {faults['log_dir']}")
    out.append("PASS" if passed else "FAIL")
    return out, passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=300)
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--kill-every", type=float, default=20, help="seconds between worker SIGKILLs")
    parser.add_argument("--kills", type=int, default=0, help="at most this many SIGKILLs (0: no cap)")
    parser.add_argument("--problems", default=",".join(DEFAULT_PROBLEMS))
    parser.add_argument("--lease", type=int, default=15, help="JUDGE_LEASE_SECONDS")
    parser.add_argument("--grace", type=int, default=10, help="JUDGE_QUEUED_GRACE_SECONDS")
    parser.add_argument("--visibility-timeout", type=int, default=10, help="Redis's, in seconds")
    parser.add_argument("--rate-limit", type=int, default=10, help="JUDGE_RATE_LIMIT_PER_MINUTE (production's)")
    parser.add_argument("--max-queued", type=int, default=3, help="JUDGE_MAX_QUEUED_PER_USER (production's)")
    parser.add_argument("--drain-timeout", type=float, default=300, help="seconds to wait for verdicts")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args()
    # A SIGTERM (a timeout) unwinds like an exception, so the stack is stopped and the database dropped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    slugs = [slug for slug in args.problems.split(",") if slug]
    check_solutions(slugs)
    began = time.time()
    run = f"{os.getpid()}"
    planned = plan(slugs, args.submissions, args.clients, run)
    work = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    content = work / "content"
    content.mkdir()
    for slug in slugs:
        subprocess.run(["cp", "-r", str(PROBLEMS / slug), str(content / slug)], check=True)
    (work / "soak_settings.py").write_text(
        "from interview.settings import *  # noqa: F403\n\n"
        f"CELERY_BROKER_TRANSPORT_OPTIONS = {{'visibility_timeout': {args.visibility_timeout}}}\n")
    redis_server = RedisServer(work / "redis")
    database = Database(f"interview_bench_soak_{run}").create()
    stack = Stack(database=database, redis_url=None, log_dir=work / "logs", settings="soak_settings",
                  PYTHONPATH=f"{ROOT}{os.pathsep}{work}", JUDGE_LEASE_SECONDS=str(args.lease),
                  JUDGE_SWEEP_SECONDS=str(SWEEP_SECONDS), JUDGE_QUEUED_GRACE_SECONDS=str(args.grace),
                  JUDGE_RATE_LIMIT_PER_MINUTE=str(args.rate_limit), JUDGE_MAX_QUEUED_PER_USER=str(args.max_queued))
    judges = Judges(stack, ["soak1", "soak2"], content)
    counts, errors, kills = Counts(), [], []
    faults = {"redis_port": redis_server.port, "log_dir": str(work / "logs"), "redis_restarts": 0,
              "connection_drops": 0, "connections_ended": 0}
    timing: dict[str, float] = {}
    try:
        redis_server.start()
        stack.environment["REDIS_URL"] = redis_server.url
        # The soak's problems alone, from a folder of their own: the tree's other packages (one being written,
        # say) cannot stop the sync, and the workers' self-check judges only these.
        stack.manage("migrate", "--no-input")
        stack.shell("from pathlib import Path\nfrom interview.services.content_sync import sync_problems\n"
                    f"sync_problems(content_dir=Path({str(content)!r}))\n")
        stack.manage("collectstatic", "--no-input", "-v", "0")
        tokens = stack.api_tokens(args.clients)
        base = stack.web(workers=3)
        judges.start_all()
        timing["setup"] = time.time() - began
        load_began = time.time()
        timing["first_post"] = load_began
        threads = [threading.Thread(target=client, args=(base, tokens[index],
                                                          [item for item in planned if item.client == index],
                                                          counts, errors), daemon=True)
                   for index in range(args.clients)]
        for thread in threads:
            thread.start()
        next_kill = time.monotonic() + args.kill_every
        drain_deadline = None
        while True:
            ids = [item.id for item in planned if item.id]
            done = progress(database, ids)
            posting = any(thread.is_alive() for thread in threads)
            share = done / len(planned)
            if not faults["redis_restarts"] and share >= REDIS_RESTART_AT:
                redis_server.stop()
                redis_server.start()
                faults["redis_restarts"] += 1
            if not faults["connection_drops"] and share >= CONNECTION_DROP_AT:
                faults["connections_ended"] += drop_connections(database)
                faults["connection_drops"] += 1
            if not posting and done == len(ids):
                break
            if time.monotonic() >= next_kill and (not args.kills or len(kills) < args.kills):
                kill = judges.kill(database, load_began)
                if kill is not None:
                    kills.append(kill)
                next_kill = time.monotonic() + args.kill_every
            if not posting and drain_deadline is None:
                drain_deadline = time.monotonic() + args.drain_timeout
            if drain_deadline is not None and time.monotonic() > drain_deadline:
                break
            time.sleep(0.5)
        timing["load"] = time.time() - load_began
        # The last kill's worker back, so its log is whole and nothing is left starting.
        wait_until(lambda: all(judges.ready.values()), timeout=120, what="the workers to be back")
        found = rows(database, "bench")
        logs_text = {name: stack.log(name) for name in judges.names}
    finally:
        teardown = time.time()
        stack.close()
        for process in judges.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        redis_server.stop()
        database.drop()
    faults["starts"] = judges.starts
    timing["teardown"] = time.time() - teardown
    timing["total"] = time.time() - began
    lines, passed = report_lines(args, counts, planned, found, logs_text, kills, faults, timing, errors, load_began)
    text = "\n".join(lines)
    print(text, flush=True)
    if args.out:
        args.out.write_text(text + "\n")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
