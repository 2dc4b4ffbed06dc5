"""Helpers for the tests that judge submissions: brokers of their own, the problem packages, real workers.

Nothing here stands in for a component: the brokers are a real folder queue and real redis-server
processes, the workers are real `celery worker` processes on the test database, and the judge is the real
one, in its sandbox.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

import kombu.pools
from django.db import connection

from interview.celery import app

ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = ROOT / "problems"
SOFTMAX = "stable-softmax"
SOFTMAX_REFERENCE = (PROBLEMS / SOFTMAX / "reference.py").read_text()
# Softmax over the wrong axis: it runs, and the sample tests catch it.
SOFTMAX_WRONG = (PROBLEMS / SOFTMAX / "solutions" / "wrong" / "ignores_dim.py").read_text()


def content_with(root: Path, *slugs: str) -> Path:
    """A content folder holding copies of these problem packages only (a worker checks each at start-up)."""
    root.mkdir(parents=True, exist_ok=True)
    for slug in slugs:
        shutil.copytree(PROBLEMS / slug, root / slug)
    return root


# The embedded queue's transport, as interview/settings.py names it for a folder queue.
FOLDER_TRANSPORT = "interview.judge.folder_queue:Transport"


def filesystem_broker(folder: Path) -> tuple[str, dict]:
    """The embedded queue's URL and options, in a folder of the test's own."""
    options = {
        "data_folder_in": str(folder / "messages"), "data_folder_out": str(folder / "messages"),
        "control_folder": str(folder / "control"), "processed_folder": str(folder / "processed"),
        "store_processed": True, "polling_interval": 1.0,
    }
    return "filesystem://localhost/", options


@contextmanager
def broker(url: str, transport_options: dict | None = None):
    """Point this process's Celery app (what the web side publishes with) at another broker for a while."""
    saved = {"broker_url": app.conf.broker_url, "broker_transport_options": app.conf.broker_transport_options,
             "broker_transport": app.conf.broker_transport}
    # The transport named in the settings wins over the URL's scheme, so it follows the URL here.
    app.conf.update(broker_url=url, broker_transport_options=transport_options or {},
                    broker_transport=FOLDER_TRANSPORT if url.startswith("filesystem:") else None)
    _drop_connections()
    try:
        yield
    finally:
        app.conf.update(**saved)
        _drop_connections()


def _drop_connections() -> None:
    # The app's pools live in kombu's registries, keyed by broker URL: closing one without clearing them would
    # hand the closed pool to the next test that points the app at the same URL ("Acquire on closed pool").
    kombu.pools.reset()
    app._pool = None
    app.amqp._producer_pool = None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A redis-server of the test's own, on a free port, that a test may stop and start again."""

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_for(self._answers, timeout=10, what=f"redis-server on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection_:
                connection_.sendall(b"PING\r\n")
                return connection_.recv(16).startswith(b"+PONG")
        except OSError:
            return False


def shared_database_url() -> str:
    """A URL for the database this test process uses, so that a worker process opens the same one."""
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{database['NAME']}"
    user = database["USER"] + (f":{database['PASSWORD']}" if database["PASSWORD"] else "")
    return f"postgres://{user}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}/{database['NAME']}"


class Worker:
    """A real `celery worker` process on the test database, with short leases and a fast sweep."""

    LEASE_SECONDS = 4
    SWEEP_SECONDS = 1
    GRACE_SECONDS = 3

    def __init__(self, *, name: str, log: Path, content: Path, broker_url: str, queue_dir: Path | None = None,
                 queues: str = "cpu", concurrency: int = 1, settings: dict[str, str] | None = None,
                 launcher: Sequence[str] = ()):
        """settings: environment variables of its own, over the test's (a database URL among them); launcher: a
        command line that runs the worker's in place of itself (exec), so that the process is the worker."""
        self.name, self.log_path = name, log
        environment = {key: value for key, value in os.environ.items()
                       if not key.startswith(("DJANGO_", "JUDGE_", "CELERY_")) and key != "REDIS_URL"}
        environment.update(
            DJANGO_SETTINGS_MODULE="interview.settings", DATABASE_URL=shared_database_url(),
            INTERVIEW_CONTENT_DIR=str(content), JUDGE_LEASE_SECONDS=str(self.LEASE_SECONDS),
            JUDGE_SWEEP_SECONDS=str(self.SWEEP_SECONDS), JUDGE_QUEUED_GRACE_SECONDS=str(self.GRACE_SECONDS),
            PYTHONUNBUFFERED="1",
        )
        if broker_url.startswith("redis:"):
            environment["REDIS_URL"] = broker_url
        else:
            environment["CELERY_QUEUE_DIR"] = str(queue_dir)
        self.environment = environment | (settings or {})
        self.command = [*launcher, sys.executable, "-m", "celery", "-A", "interview", "worker", "--queues", queues,
                        "--concurrency", str(concurrency), "--hostname", name, "--without-mingle",
                        "--without-gossip", "--loglevel", "INFO"]
        self.process: subprocess.Popen | None = None

    def start(self) -> Worker:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(self.command, cwd=ROOT, env=self.environment, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def wait_ready(self, timeout: float = 180) -> Worker:
        """Until the worker passed its self-check and consumes; fails with its log if it exits first."""
        from interview.models import WorkerHeartbeat, WorkerState

        def ready() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(f"worker {self.name} exited with {self.process.returncode}:\n{self.log()}")
            return WorkerHeartbeat.objects.filter(name=self.name, state=WorkerState.READY).exists() \
                and "ready." in self.log()

        wait_for(ready, timeout=timeout, what=f"worker {self.name} to be ready", log=self.log)
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill(self) -> None:
        """SIGKILL the main process only, as the kernel's OOM killer or a crash would."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """A warm shutdown, as a service manager asks for one: SIGTERM to the main process alone (a pool process
        that got it too would die mid-task and be replaced), then SIGKILL to whatever of the group is left."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()


def wait_for(condition, *, timeout: float, what: str, interval: float = 0.2, log=None):
    """Poll condition() until it returns something true; AssertionError naming `what` after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() > deadline:
            detail = f"\n--- log ---\n{log()[-6000:]}" if log else ""
            raise AssertionError(f"timed out after {timeout} s waiting for {what}{detail}")
        time.sleep(interval)
