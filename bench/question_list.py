"""The question list under load, beside a bare Django view served by the same server with the same settings.

    .venv/bin/python bench/question_list.py [--seconds 10] [--connections 32]

Starts its own stack: a PostgreSQL database `interview_bench_questions` (created, loaded with the question
bank by sync_content, dropped at the end), gunicorn in production mode (DEBUG off, two sync workers) pinned
to CPU 1 with taskset, and `wrk` (the Debian package, installed here when run as root) pinned to CPU 0 with
32 connections. The server's settings are the app's own plus bench/urls.py, which adds the bare view
(`/bench/bare`, a constant string) beside the app's URLs. Each URL gets a warm-up run, then a measured run;
p95 latency comes from wrk's own histogram (a Lua `done` hook). The anonymous list is what a visitor, a
search engine or a shared link sees; a logged-in reader's list is measured too, with a session cookie.

Targets: /questions/ serves at least half the requests per second of the bare view, and a logged-in reader's
/questions/ at least half of the anonymous one's.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stack import Database, Stack, ensure_package, machine, mark  # noqa: E402

WRK_REPORT = """
done = function(summary, latency, requests)
  io.write(string.format('{"requests": %d, "seconds": %f, "errors": %d, "non2xx": %d, "p50_us": %d, "p95_us": %d, "p99_us": %d}\\n',
    summary.requests, summary.duration / 1e6,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status, latency:percentile(50), latency:percentile(95), latency:percentile(99)))
end
"""


def wrk(wrk_path: str, url: str, *, seconds: int, connections: int, script: Path, cookie: str = "") -> dict:
    command = ["taskset", "-c", "0", wrk_path, "-t1", f"-c{connections}", f"-d{seconds}s", "-s", str(script)]
    if cookie:
        command += ["-H", f"Cookie: {cookie}"]
    output = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    report = json.loads(re.findall(r"^\{.*\}$", output, flags=re.MULTILINE)[-1])
    report["rps"] = report["requests"] / report["seconds"]
    return report


def session_cookie(stack: Stack) -> str:
    """A logged-in session for a user of the benchmark's own, as the browser would hold it."""
    return stack.shell(
        "from django.contrib.auth import get_user_model, SESSION_KEY, BACKEND_SESSION_KEY, HASH_SESSION_KEY\n"
        "from django.contrib.sessions.backends.db import SessionStore\n"
        "user = get_user_model().objects.create_user('reader', password='a long bench password')\n"
        "session = SessionStore()\n"
        "session[SESSION_KEY] = str(user.pk)\n"
        "session[BACKEND_SESSION_KEY] = 'interview.auth.ThrottledModelBackend'\n"
        "session[HASH_SESSION_KEY] = user.get_session_auth_hash()\n"
        "session.create()\n"
        "print('sessionid=' + session.session_key)\n"
    ).strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    wrk_path = ensure_package("wrk", "wrk")
    ensure_package("taskset", "util-linux")
    database = Database("interview_bench_questions").create()
    work = Path(tempfile.mkdtemp(prefix="bench-questions-"))
    stack = Stack(database=database, redis_url=None, log_dir=work, settings="bench.settings")
    script = work / "report.lua"
    script.write_text(WRK_REPORT)
    try:
        stack.prepare()
        cookie = session_cookie(stack)
        base = stack.web(workers=2, cpus="1")
        targets = [("bare view (/bench/bare)", base + "/bench/bare", ""),
                   ("/questions/", base + "/questions/", ""),
                   ("/questions/?topic=attention", base + "/questions/?topic=attention", ""),
                   ("/questions/ logged in", base + "/questions/", cookie)]
        results = {}
        for name, url, with_cookie in targets:
            wrk(wrk_path, url, seconds=2, connections=args.connections, script=script, cookie=with_cookie)
            results[name] = wrk(wrk_path, url, seconds=args.seconds, connections=args.connections, script=script,
                                cookie=with_cookie)
    finally:
        stack.close()
        database.drop()
    print(f"machine: {machine()}")
    print(f"server: gunicorn, 2 sync workers, DEBUG off, pinned to CPU 1; wrk -t1 -c{args.connections} "
          f"-d{args.seconds}s pinned to CPU 0; PostgreSQL unpinned")
    print(f"{'URL':34} {'req/s':>9} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7}")
    for name, report in results.items():
        print(f"{name:34} {report['rps']:9.0f} {report['p50_us'] / 1000:8.2f} {report['p95_us'] / 1000:8.2f} "
              f"{report['p99_us'] / 1000:8.2f} {report['errors'] + report['non2xx']:7d}")
    bare, listed = results["bare view (/bench/bare)"]["rps"], results["/questions/"]["rps"]
    share = listed / bare
    print(f"target: /questions/ at least 0.50x the bare view's requests per second: {share:.2f}x  {mark(share >= 0.5)}")
    signed_in = results["/questions/ logged in"]["rps"] / listed
    print(f"target: /questions/ logged in at least 0.50x the anonymous list's requests per second: {signed_in:.2f}x  "
          f"{mark(signed_in >= 0.5)}")


if __name__ == "__main__":
    main()
