"""What /healthz reports: the database, the broker, the judge workers and the queues."""

from django.db import DatabaseError, connection
from django.db.models import Count
from django.utils import timezone

from interview.judge import queues
from interview.models import Queue, Status, Submission, WorkerState
from interview.selectors.workers import fresh_workers


def health_report() -> tuple[bool, dict]:
    """(healthy, report): healthy when the database and broker answer and at least one worker consumes."""
    report: dict = {"database": {"ok": True}, "broker": {"ok": True}, "workers": [], "queues": {}}
    try:
        connection.ensure_connection()
        workers = fresh_workers()
        counts = dict(((row["queue"], row["status"]), row["n"]) for row in Submission.objects.filter(
            status__in=(Status.QUEUED, Status.RUNNING)).values("queue", "status").annotate(n=Count("pk")).order_by())
    except DatabaseError as error:
        report["database"] = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        workers, counts = [], {}
    problem = queues.broker_problem()
    if problem:
        report["broker"] = {"ok": False, "error": problem}
    now = timezone.now()
    report["workers"] = [
        {"name": worker.name, "state": worker.state, "queues": worker.queues, "concurrency": worker.concurrency,
         "torch": worker.torch_version, "device": worker.device_name, "judge": worker.judge_version,
         "last_seen_seconds_ago": round((now - worker.last_seen_at).total_seconds(), 1)}
        for worker in workers
    ]
    depths = queues.depths() if not problem else {}
    for queue in Queue.values:
        report["queues"][queue] = {
            "messages": depths.get(queue), "queued": counts.get((queue, Status.QUEUED), 0),
            "running": counts.get((queue, Status.RUNNING), 0),
            "workers": sum(1 for w in workers if w.state == WorkerState.READY and queue in w.queues),
        }
    healthy = (report["database"]["ok"] and report["broker"]["ok"]
               and any(worker.state == WorkerState.READY for worker in workers))
    report["status"] = "ok" if healthy else "unhealthy"
    return healthy, report
