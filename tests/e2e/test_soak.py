"""The chaos soak, short: bench/soak.py with a worker SIGKILLed mid-judge, Redis restarted and the database's
connections ended under 40 submissions from 4 clients, and nothing lost, stuck, duplicated or misjudged.

It starts its own stack (a PostgreSQL database, a redis-server, gunicorn, two workers), so it needs the local
PostgreSQL server the benchmarks use (BENCH_POSTGRES_URL) and redis-server; the full soak is
`.venv/bin/python bench/soak.py` (docs/speed.md).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.sandbox, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
# 80 s on a fast machine beside the rest of the suite, 165 s on one half as fast: the bound catches a soak that
# hangs, with room for a slower machine still.
SOAK_TIMEOUT_S = 540


def postgres_answers() -> bool:
    import psycopg

    try:
        psycopg.connect(os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"),
                        connect_timeout=3).close()
    except psycopg.OperationalError:
        return False
    return True


@pytest.mark.timeout(SOAK_TIMEOUT_S + 180)
def test_a_short_soak_loses_nothing(tmp_path):
    if not postgres_answers():
        pytest.skip("the soak needs the local PostgreSQL server (BENCH_POSTGRES_URL)")
    report = tmp_path / "soak.txt"
    soak = subprocess.Popen(
        [sys.executable, "bench/soak.py", "--submissions", "40", "--clients", "4", "--kills", "1", "--kill-every",
         "8", "--lease", "8", "--grace", "5", "--visibility-timeout", "5", "--problems", "stable-softmax,rmsnorm",
         "--drain-timeout", "120", "--out", str(report)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        output, _ = soak.communicate(timeout=SOAK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        # SIGTERM, not the SIGKILL a plain timeout sends: the soak then stops the gunicorn, the workers and the
        # redis-server it started in sessions of their own and drops its database, which would otherwise
        # outlive it and run beside the rest of the suite.
        soak.terminate()
        output, _ = soak.communicate(timeout=120)
        pytest.fail(f"the short soak took over {SOAK_TIMEOUT_S} s:\n{output}")
    assert soak.returncode == 0, output
    lines = report.read_text().splitlines()
    assert lines[-1] == "PASS", output
    assert "finished 40; lost 0; stuck 0; duplicates 0; wrong verdicts 0; attempts miscounted 0" in report.read_text()
    assert "worker SIGKILLs 1 (1 in the middle of a judge)" in report.read_text(), output
    assert "Redis restarts 1, PostgreSQL connection drops 1" in report.read_text(), output
    # A connection the database ended is found dead before a request uses it (CONN_HEALTH_CHECKS): no 500.
    assert "failed requests (5xx, dropped connections) sent again with the same key 0," in report.read_text(), output
