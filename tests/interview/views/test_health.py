"""/healthz: the database, the broker, the workers and the queues, and 503 when submissions cannot be judged."""

from datetime import timedelta

import pytest
from django.utils import timezone

from interview.models import Status, WorkerState
from interview.services.workers import worker_heartbeat
from tests.interview.factories import SubmissionFactory
from tests.judging_support import broker, free_port

pytestmark = pytest.mark.django_db


def test_without_a_worker_the_app_is_unhealthy(client, embedded_queue):
    response = client.get("/healthz")
    assert response.status_code == 503
    report = response.json()
    assert report["status"] == "unhealthy"
    assert report["database"] == {"ok": True} and report["broker"] == {"ok": True}
    assert report["workers"] == []


def test_with_a_consuming_worker_the_app_is_healthy_and_reports_its_queues(client, embedded_queue):
    worker_heartbeat(name="cpu@host", state=WorkerState.READY, queues=["cpu"], torch_version="2.13.0",
                     judge_version="0123456789abcdef")
    SubmissionFactory(status=Status.QUEUED, verdict="", queue="cpu")
    SubmissionFactory(status=Status.RUNNING, verdict="", queue="cpu", lease_expires_at=timezone.now())
    response = client.get("/healthz")
    assert response.status_code == 200
    report = response.json()
    assert report["status"] == "ok"
    assert [(w["name"], w["state"], w["queues"]) for w in report["workers"]] == [("cpu@host", "ready", ["cpu"])]
    assert report["workers"][0]["judge"] == "0123456789abcdef"
    assert report["queues"]["cpu"] == {"messages": 0, "queued": 1, "running": 1, "workers": 1}
    assert report["queues"]["gpu"] == {"messages": 0, "queued": 0, "running": 0, "workers": 0}
    assert response["Cache-Control"].startswith("max-age=0")


def test_a_worker_gone_silent_does_not_count(client, embedded_queue):
    heartbeat = worker_heartbeat(name="cpu@host", state=WorkerState.READY, queues=["cpu"])
    heartbeat.last_seen_at = timezone.now() - timedelta(minutes=5)
    heartbeat.save()
    assert client.get("/healthz").status_code == 503


def test_a_worker_that_refused_its_queue_does_not_count(client, embedded_queue):
    worker_heartbeat(name="cpu@host", state=WorkerState.REFUSED, queues=["cpu"], detail="FAIL cpu stable-softmax")
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["workers"][0]["state"] == "refused"


def test_a_broker_that_does_not_answer_is_reported(client):
    worker_heartbeat(name="cpu@host", state=WorkerState.READY, queues=["cpu"])
    with broker(f"redis://127.0.0.1:{free_port()}/0"):
        response = client.get("/healthz")
    assert response.status_code == 503
    report = response.json()
    assert report["broker"]["ok"] is False and "Error" in report["broker"]["error"]
    assert report["queues"]["cpu"]["messages"] is None
