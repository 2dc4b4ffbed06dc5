"""What the benchmarks share: the machine they ran on, percentiles, CPU use, and the real stack started from
this checkout (a PostgreSQL database and a Redis database of their own, gunicorn, Celery workers).

Nothing here stands in for a component: the database, the broker, the web server and the workers are the
ones production runs. A benchmark creates its own database (dropped at the end) and uses its own Redis
database number (flushed before and after), so it never touches the app's or the tests' data.

    BENCH_POSTGRES_URL   an administrative PostgreSQL URL (default postgres://postgres@127.0.0.1:5432/postgres)
    BENCH_REDIS_URL      the Redis server (default redis://127.0.0.1:6379); the benchmark picks the database
"""

from __future__ import annotations

import os
import platform
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
POSTGRES_ADMIN_URL = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_SERVER_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379")


def machine() -> str:
    """CPU model, cores, load average, kernel, Python and torch: what every figure depends on."""
    model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                 platform.processor())
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    try:
        import torch

        torch_version = torch.__version__
    except ImportError:
        torch_version = "not installed"
    return (f"{model}, {os.cpu_count()} cores, load average {load}, Linux {platform.release()}, "
            f"Python {platform.python_version()}, torch {torch_version}")


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) of values, by linear interpolation between the closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def mark(met: bool) -> str:
    return "PASS" if met else "MISS"


class CpuMeter:
    """The share of the machine's CPU time that was busy between start() and stop(), from /proc/stat."""

    @staticmethod
    def _sample() -> tuple[int, int]:
        with open("/proc/stat") as stat:
            fields = [int(value) for value in stat.readline().split()[1:]]
        idle = fields[3] + fields[4]  # idle and iowait
        return sum(fields) - idle, sum(fields)

    def start(self) -> CpuMeter:
        self._begin = self._sample()
        return self

    def stop(self) -> float:
        busy, total = self._sample()
        return (busy - self._begin[0]) / max(1, total - self._begin[1])


def ensure_package(binary: str, package: str) -> str:
    """The path of binary, installing the Debian package that has it when this runs as root."""
    found = shutil.which(binary)
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"installing {package} (Debian package) for {binary} ...", flush=True)
        subprocess.run(["apt-get", "install", "-y", "-q", package], check=False, stdout=subprocess.DEVNULL,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        found = shutil.which(binary)
    if not found:
        sys.exit(f"{binary} is missing: install the Debian package `{package}` (apt-get install {package})")
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(condition, *, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


class Database:
    """A PostgreSQL database of the benchmark's own, created fresh and dropped at the end."""

    def __init__(self, name: str):
        self.name = name
        parts = urlsplit(POSTGRES_ADMIN_URL)
        self.url = urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))

    def _admin(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as connection:
            connection.execute(statement)

    def create(self) -> Database:
        self.drop()
        self._admin(f'CREATE DATABASE "{self.name}"')
        return self

    def drop(self) -> None:
        self._admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


def redis_database(number: int) -> str:
    """The URL of one Redis database, emptied."""
    import redis

    parts = urlsplit(REDIS_SERVER_URL)
    url = urlunsplit((parts.scheme, parts.netloc, f"/{number}", "", ""))
    redis.Redis.from_url(url).flushdb()
    return url


def submission_times(database: Database, ids: list[int]) -> dict[int, dict]:
    """Each submission's server-side timestamps (seconds since the epoch) and verdict, from the database."""
    import psycopg

    with psycopg.connect(database.url) as connection:
        rows = connection.execute(
            "SELECT s.id, extract(epoch FROM s.created_at), extract(epoch FROM j.started_at), "
            "extract(epoch FROM j.finished_at), j.verdict, s.attempts FROM interview_submission s "
            "JOIN interview_judgement j ON j.id = s.judgement_id WHERE s.id = ANY(%s)",
            (ids,)).fetchall()
    return {row[0]: {"created": float(row[1]), "started": float(row[2]), "finished": float(row[3]),
                     "verdict": row[4], "attempts": row[5]} for row in rows}


class Stack:
    """The app's processes, on the benchmark's database and broker, in production mode (DEBUG off)."""

    def __init__(self, *, database: Database, redis_url: str | None, log_dir: Path, settings: str = "interview.settings",
                 **environment: str):
        self.log_dir = log_dir
        log_dir.mkdir(parents=True, exist_ok=True)
        inherited = {key: value for key, value in os.environ.items()
                     if not key.startswith(("DJANGO_", "JUDGE_", "CELERY_", "DATABASE_")) and key != "REDIS_URL"}
        self.environment = {
            **inherited, "DJANGO_SETTINGS_MODULE": settings, "DJANGO_ENV": "production",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "DJANGO_SECURE_COOKIES": "0",
            # A production worker refuses its queues without the deployment's seed key: one per stack.
            "JUDGE_SEED_KEY": secrets.token_hex(32),
            "DJANGO_LOG_LEVEL": "WARNING", "DATABASE_URL": database.url, "PYTHONPATH": str(ROOT),
            "CELERY_QUEUE_DIR": str(log_dir / "queue"), **environment,
        }
        if redis_url:
            self.environment["REDIS_URL"] = redis_url
        self.processes: list[subprocess.Popen] = []

    def manage(self, *arguments: str) -> str:
        finished = subprocess.run([PYTHON, "manage.py", *arguments], cwd=ROOT, env=self.environment,
                                  capture_output=True, text=True)
        if finished.returncode != 0:
            raise SystemExit(f"manage.py {' '.join(arguments)} failed:\n{finished.stdout}\n{finished.stderr}")
        return finished.stdout

    def prepare(self) -> None:
        """Tables, the question bank and the problem packages, and the static files' manifest."""
        self.manage("migrate", "--no-input")
        self.manage("sync_content")
        self.manage("collectstatic", "--no-input", "-v", "0")

    def shell(self, code: str) -> str:
        """Run Python in a Django shell of the stack; its stdout."""
        return self.manage("shell", "-c", code)

    def api_tokens(self, count: int) -> list[str]:
        """count users of the benchmark's own, with an API token each."""
        output = self.shell(
            "from django.contrib.auth import get_user_model\n"
            "from interview.services.accounts import api_token_create\n"
            f"for index in range({count}):\n"
            "    user = get_user_model().objects.create_user(f'bench{index}', password='a long bench password')\n"
            "    print('TOKEN', api_token_create(user=user, name='bench').token)\n")
        return [line.split()[1] for line in output.splitlines() if line.startswith("TOKEN ")]

    def start(self, name: str, command: list[str], *, cpus: str | None = None, **environment: str) -> subprocess.Popen:
        if cpus is not None:
            command = ["taskset", "-c", cpus, *command]
        log = open(self.log_dir / f"{name}.log", "ab")
        process = subprocess.Popen(command, cwd=ROOT, env={**self.environment, **environment}, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append(process)
        return process

    def web(self, *, workers: int = 2, cpus: str | None = None, wsgi: str = "interview.wsgi:application") -> str:
        """gunicorn with sync workers; its base URL once it answers."""
        port = free_port()
        self.start("gunicorn", [PYTHON, "-m", "gunicorn", wsgi, "--bind", f"127.0.0.1:{port}", "--workers",
                                str(workers), "--worker-class", "sync", "--log-level", "warning"], cpus=cpus)
        url = f"http://127.0.0.1:{port}"

        def answers() -> bool:
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2):
                    return True
            except urllib.error.HTTPError:
                return True
            except OSError:
                return False

        wait_until(answers, timeout=60, what="gunicorn to answer")
        return url

    def worker(self, *, name: str, concurrency: int = 1, pool_size: int = 3, **environment: str) -> subprocess.Popen:
        """A Celery judge worker on the cpu queue; returns once its self-check passed, it consumes, and each
        pool process's warm pool is full."""
        process = self.start(name, [PYTHON, "-m", "celery", "-A", "interview", "worker", "--queues", "cpu",
                                    "--concurrency", str(concurrency), "--hostname", f"{name}@bench",
                                    "--without-mingle", "--without-gossip", "--loglevel", "INFO"],
                             JUDGE_POOL_SIZE=str(pool_size), DJANGO_LOG_LEVEL="INFO", **environment)

        def ready() -> bool:
            if process.poll() is not None:
                raise SystemExit(f"worker {name} exited with {process.returncode}:\n{self.log(name)[-4000:]}")
            return "ready." in self.log(name) and (pool_size == 0 or self.pool_fills(name) >= concurrency)

        wait_until(ready, timeout=600, what=f"worker {name} to pass its self-check and fill its pools")
        return process

    def log(self, name: str) -> str:
        path = self.log_dir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def pool_fills(self, name: str) -> int:
        """How many times a warm pool of the worker became full (runner/pool.py logs each)."""
        return self.log(name).count("Warm pool full")

    def stop(self, process: subprocess.Popen) -> None:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if process in self.processes:
            self.processes.remove(process)

    def close(self) -> None:
        for process in reversed(list(self.processes)):
            self.stop(process)
