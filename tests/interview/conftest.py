"""Fixtures for the web app's tests."""

import pytest

from tests.interview.content_tree import ContentTree

HINTS = ["<p>Subtract the maximum.</p>", "<p>Along <code>dim</code>.</p>", "<p>Mind float16.</p>"]


@pytest.fixture
def content(tmp_path) -> ContentTree:
    """An empty question bank (two topics, one seed document) in a temporary content folder."""
    return ContentTree(tmp_path / "content")


@pytest.fixture
def hinted_problem():
    """A problem row with three hints, for the hints panel and its endpoint."""
    from tests.interview.factories import ProblemFactory

    return ProblemFactory(slug="softmax", title="Stable softmax", hints_html=HINTS)


class EmbeddedQueue:
    """The judge queues as a real folder queue of the test's own; `taken()` reads what was sent, as a worker would."""

    def taken(self, queue: str = "cpu") -> list[int]:
        """The submission ids of the messages waiting on `queue`, taking them off it."""
        from interview.celery import app
        from interview.judge.queues import JUDGE_TASK

        ids = []
        with app.connection_for_read() as connection:
            waiting = connection.SimpleQueue(queue)
            while True:
                try:
                    message = waiting.get(block=False)
                except waiting.Empty:
                    break
                assert message.headers["task"] == JUDGE_TASK
                args, _kwargs, _embed = message.decode()
                ids.append(args[0])
                message.ack()
            waiting.close()
        return ids


@pytest.fixture
def embedded_queue(tmp_path) -> EmbeddedQueue:
    """Messages go to a folder queue in tmp_path (never to a broker a developer's worker might be reading)."""
    from interview.judge.queues import embedded_queue_folders
    from tests.judging_support import broker, filesystem_broker

    with broker(*filesystem_broker(tmp_path / "queue")):
        embedded_queue_folders()
        yield EmbeddedQueue()


@pytest.fixture
def softmax(db, tmp_path):
    """The real stable-softmax package, synced into the database from a content folder holding it alone."""
    from interview.models import Problem
    from interview.services.content_sync import sync_problems
    from tests.judging_support import SOFTMAX, content_with

    content = content_with(tmp_path / "content", SOFTMAX)
    sync_problems(content_dir=content)
    return Problem.objects.get(slug=SOFTMAX)
