"""Heartbeats of the judge workers, written by each worker's main process."""

from datetime import timedelta

from django.utils import timezone

from interview.models import WorkerHeartbeat, WorkerState

# A row not touched for this long belongs to a worker that is gone for good; it leaves /healthz.
FORGET_AFTER = timedelta(days=1)


def worker_heartbeat(*, name: str, state: str | None = None, **fields) -> WorkerHeartbeat:
    """Record that worker `name` is alive now, with its state and whatever else it reports."""
    now = timezone.now()
    values = {"last_seen_at": now, **fields}
    if state is not None:
        values["state"] = state
    heartbeat, created = WorkerHeartbeat.objects.update_or_create(
        name=name, defaults=values, create_defaults={"started_at": now, "state": WorkerState.CHECKING, **values}
    )
    return heartbeat


def worker_heartbeats_forget() -> int:
    """Delete the rows of workers not heard from for a day; how many went."""
    deleted, _ = WorkerHeartbeat.objects.filter(last_seen_at__lt=timezone.now() - FORGET_AFTER).delete()
    return deleted
