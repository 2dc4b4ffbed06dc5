"""Routing: a problem's needs choose the queue, and "any" prefers a GPU worker whose heartbeat is fresh."""

from datetime import timedelta

import pytest
from django.utils import timezone

from interview.models import Status, Submission, WorkerState
from interview.selectors.workers import current_judge_versions, judge_queue
from interview.judge.runs import submissions_sweep
from interview.services.workers import worker_heartbeat
from tests.interview.factories import ProblemFactory, SubmissionFactory

pytestmark = pytest.mark.django_db


def gpu_worker(*, state=WorkerState.READY, seen_seconds_ago=0, queues=("gpu",)):
    heartbeat = worker_heartbeat(name="gpu@host", state=state, queues=list(queues))
    heartbeat.last_seen_at = timezone.now() - timedelta(seconds=seen_seconds_ago)
    heartbeat.save()
    return heartbeat


@pytest.mark.parametrize("needs, queue", [("cuda", "gpu"), ("cpu", "cpu")])
def test_a_problem_that_needs_one_device_always_goes_to_its_queue(needs, queue):
    assert judge_queue(ProblemFactory(needs=needs)) == queue
    gpu_worker()
    assert judge_queue(ProblemFactory(needs=needs)) == queue


def test_a_problem_that_runs_anywhere_goes_to_the_cpu_while_no_gpu_worker_is_up():
    assert judge_queue(ProblemFactory(needs="any")) == "cpu"


def test_a_problem_that_runs_anywhere_goes_to_the_gpu_while_a_gpu_worker_is_up():
    gpu_worker()
    assert judge_queue(ProblemFactory(needs="any")) == "gpu"


def test_a_gpu_worker_not_heard_from_for_three_intervals_counts_as_gone(settings):
    settings.JUDGE_SWEEP_SECONDS = 10
    gpu_worker(seen_seconds_ago=31)
    assert judge_queue(ProblemFactory(needs="any")) == "cpu"


@pytest.mark.parametrize("state", [WorkerState.CHECKING, WorkerState.REFUSED, WorkerState.STOPPED])
def test_a_gpu_worker_that_does_not_consume_takes_nothing(state):
    gpu_worker(state=state)
    assert judge_queue(ProblemFactory(needs="any")) == "cpu"


def test_a_cpu_worker_does_not_count_as_a_gpu_worker():
    gpu_worker(queues=("cpu",))
    assert judge_queue(ProblemFactory(needs="any")) == "cpu"


def test_a_submission_left_waiting_for_a_gpu_worker_that_went_away_moves_to_the_cpu(settings, embedded_queue):
    settings.JUDGE_QUEUED_GRACE_SECONDS = 5
    waiting = SubmissionFactory(status=Status.QUEUED, verdict="", queue="gpu", problem=ProblemFactory(needs="any"),
                                enqueued_at=timezone.now() - timedelta(seconds=6), deliveries=1)
    submissions_sweep()
    waiting.refresh_from_db()
    assert waiting.queue == "cpu"
    assert Submission.objects.get(pk=waiting.pk).deliveries == 2


def test_the_current_judge_versions_are_those_the_consuming_workers_run(settings):
    settings.JUDGE_SWEEP_SECONDS = 10
    worker_heartbeat(name="cpu@a", state=WorkerState.READY, queues=["cpu"], judge_version="aaaaaaaaaaaaaaaa")
    worker_heartbeat(name="gpu@b", state=WorkerState.READY, queues=["gpu"], judge_version="bbbbbbbbbbbbbbbb")
    worker_heartbeat(name="cpu@c", state=WorkerState.STOPPED, queues=["cpu"], judge_version="cccccccccccccccc")
    gone = worker_heartbeat(name="cpu@d", state=WorkerState.READY, queues=["cpu"], judge_version="dddddddddddddddd")
    gone.last_seen_at = timezone.now() - timedelta(seconds=31)
    gone.save()
    assert current_judge_versions() == {"aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"}


def test_no_judge_version_is_current_while_no_worker_consumes():
    worker_heartbeat(name="cpu@a", state=WorkerState.CHECKING, queues=["cpu"], judge_version="aaaaaaaaaaaaaaaa")
    assert current_judge_versions() == set()
