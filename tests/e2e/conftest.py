"""Fixtures for the end-to-end tests: the app served over HTTP, real worker processes, real brokers."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

import pytest

from interview.api_client import ApiClient
from interview.models import Submission
from interview.services.accounts import api_token_create
from interview.services.content_sync import sync_problems
from tests.judging_support import SOFTMAX, RedisServer, Worker, broker, content_with


class Api(ApiClient):
    """The API client with the tests' defaults: stable-softmax, and the worker's log in a timeout's message."""

    def submit(self, source: str, tests: str = "sample", problem: str = SOFTMAX) -> int:
        return super().submit(problem, source, tests)

    def wait_judged(self, submission_id: int, timeout: float = 180, log=None) -> dict:
        try:
            return super().wait_judged(submission_id, interval_s=0.5, timeout_s=timeout)
        except TimeoutError as error:
            raise AssertionError(f"{error}\n--- log ---\n{log()[-6000:]}" if log else str(error)) from None


@pytest.fixture
def content(tmp_path, transactional_db):
    """A content folder with stable-softmax alone, synced into the test database."""
    folder = content_with(tmp_path / "content", SOFTMAX)
    sync_problems(content_dir=folder)
    return folder


@pytest.fixture
def api(live_server, django_user_model) -> Api:
    user = django_user_model.objects.create_user("grace", password="correct horse battery staple")
    return Api(live_server.url, api_token_create(user=user, name="e2e").token)


@pytest.fixture
def private_redis(tmp_path):
    """A redis-server of the test's own, which it may stop and start again."""
    server = RedisServer(tmp_path / "redis")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(tmp_path):
    """The Redis this run was given (REDIS_URL) on a database of this test process's own (15, then 14 for the
    second of parallel test processes, ...), emptied first; else a private one."""
    given = os.environ.get("REDIS_URL")
    if given:
        import redis

        parallel_index = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
        parts = urlsplit(given)
        url = urlunsplit((parts.scheme, parts.netloc, f"/{15 - parallel_index}", "", ""))
        redis.Redis.from_url(url).flushdb()
        yield url
        return
    server = RedisServer(tmp_path / "redis")
    server.start()
    yield server.url
    server.stop()


@pytest.fixture
def start_worker(tmp_path, content, transactional_db):
    """Start real workers on the test database; each is stopped at the end, its log kept in tmp_path."""
    started: list[Worker] = []

    def start(broker_url: str, *, name: str = "cpu@e2e", queue_dir=None, content_dir=None, wait: bool = True):
        worker = Worker(name=name, log=tmp_path / f"{name}.log", content=content_dir or content,
                        broker_url=broker_url, queue_dir=queue_dir).start()
        started.append(worker)
        return worker.wait_ready() if wait else worker

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture
def web_publishes_to():
    """Point this process's Celery app, which the live server publishes with, at a broker."""
    stack = []

    def point(url: str, options: dict | None = None):
        context = broker(url, options)
        context.__enter__()
        stack.append(context)

    yield point
    while stack:
        stack.pop().__exit__(None, None, None)


def finish_lines(submission_id: int, *workers: Worker) -> int:
    """How many times the workers logged that this submission finished (a guarded write logs once)."""
    return sum(worker.log().count(f"Submission {submission_id} finished:") for worker in workers)


def submission(pk: int) -> Submission:
    return Submission.objects.get(pk=pk)
