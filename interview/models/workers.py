"""Judge workers as the database sees them: one heartbeat row per worker process.

The web app and the workers both reach the database whatever the broker is, so routing ("is a GPU worker
up?") and /healthz read these rows rather than asking the broker. The web process never loads the judge, so
the version of the judge the workers run is known here from their rows too.
"""

from datetime import timedelta

from django.db import models
from django.utils import timezone


class WorkerState(models.TextChoices):
    CHECKING = "checking", "Checking its device"
    READY = "ready", "Consuming"
    REFUSED = "refused", "Refused its queues (self-check failed)"
    STOPPED = "stopped", "Stopped"


class WorkerHeartbeatQuerySet(models.QuerySet):
    def fresh(self, *, interval_seconds: float):
        """Workers heard from within three heartbeat intervals."""
        return self.filter(last_seen_at__gte=timezone.now() - timedelta(seconds=3 * interval_seconds))


class WorkerHeartbeat(models.Model):
    name = models.CharField(max_length=200, unique=True, help_text="The Celery node name, e.g. gpu@host.")
    queues = models.JSONField(default=list)
    state = models.CharField(max_length=8, choices=WorkerState.choices, default=WorkerState.CHECKING)
    detail = models.TextField(blank=True, help_text="The self-check's report.")
    pid = models.PositiveIntegerField(null=True)
    concurrency = models.PositiveSmallIntegerField(default=1)
    torch_version = models.CharField(max_length=40, blank=True)
    device_name = models.CharField(max_length=200, blank=True, help_text="The GPU's name, for GPU workers.")
    judge_version = models.CharField(
        max_length=16, blank=True, help_text="The version of the judge it runs: a hash of its code (runner/version.py).",
    )
    started_at = models.DateTimeField()
    last_seen_at = models.DateTimeField()

    objects = WorkerHeartbeatQuerySet.as_manager()

    class Meta:
        ordering = ("name",)

    def __str__(self) -> str:
        return self.name
