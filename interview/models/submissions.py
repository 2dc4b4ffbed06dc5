"""Submissions and their per-test results.

A submission moves queued → running → finished, or to error when it could not be judged. Every move is
one guarded UPDATE in interview.services (never a save() of a stale row), so a message delivered twice, a
worker that lost its lease, or two sweeps at once change nothing they should not. `attempts` counts the
times a worker took the submission; it doubles as the fencing token of the lease: a worker writes results
only while the row still carries the attempt number it took.
"""

from django.conf import settings
from django.db import models
from django.urls import reverse

from interview.models.problems import Problem


class Status(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"
    ERROR = "error", "Could not be judged"


class Suite(models.TextChoices):
    SAMPLE = "sample", "Run (sample tests)"
    ALL = "all", "Submit (all tests)"


class Queue(models.TextChoices):
    CPU = "cpu", "CPU"
    GPU = "gpu", "GPU"

    @property
    def device(self) -> str:
        """The torch device type a worker consuming this queue judges on."""
        return "cuda" if self is Queue.GPU else "cpu"


# The judge's vocabulary. The values are the runner's (runner.verdict), which the web side must not import;
# tests/interview/test_vocabulary.py keeps the two the same.
class Verdict(models.TextChoices):
    ACCEPTED = "accepted", "Accepted"
    WRONG_ANSWER = "wrong_answer", "Wrong answer"
    TIME_LIMIT_EXCEEDED = "time_limit_exceeded", "Time limit exceeded"
    MEMORY_LIMIT_EXCEEDED = "memory_limit_exceeded", "Memory limit exceeded"
    RUNTIME_ERROR = "runtime_error", "Runtime error"
    COMPILE_ERROR = "compile_error", "Compile error"
    FORBIDDEN = "forbidden", "Forbidden call"
    INTERNAL_ERROR = "internal_error", "Judge error"


class TestStatus(models.TextChoices):
    """A test's outcome: passed, skipped (after an earlier failure), or the failing verdict it produced."""

    __test__ = False  # a name pytest would otherwise try to collect where a test module imports it

    PASSED = "passed", "Passed"
    SKIPPED = "skipped", "Skipped"
    WRONG_ANSWER = Verdict.WRONG_ANSWER.value, Verdict.WRONG_ANSWER.label
    TIME_LIMIT_EXCEEDED = Verdict.TIME_LIMIT_EXCEEDED.value, Verdict.TIME_LIMIT_EXCEEDED.label
    MEMORY_LIMIT_EXCEEDED = Verdict.MEMORY_LIMIT_EXCEEDED.value, Verdict.MEMORY_LIMIT_EXCEEDED.label
    RUNTIME_ERROR = Verdict.RUNTIME_ERROR.value, Verdict.RUNTIME_ERROR.label
    COMPILE_ERROR = Verdict.COMPILE_ERROR.value, Verdict.COMPILE_ERROR.label
    FORBIDDEN = Verdict.FORBIDDEN.value, Verdict.FORBIDDEN.label
    INTERNAL_ERROR = Verdict.INTERNAL_ERROR.value, Verdict.INTERNAL_ERROR.label


ACTIVE_STATUSES = (Status.QUEUED, Status.RUNNING)


class Submission(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="submissions")
    source = models.TextField()
    suite = models.CharField(max_length=6, choices=Suite.choices, default=Suite.ALL)
    idempotency_key = models.CharField(max_length=64, null=True, blank=True, editable=False)

    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    verdict = models.CharField(max_length=24, choices=Verdict.choices, blank=True,
                               help_text="Blank until the submission is finished.")
    message = models.TextField(blank=True, help_text="Why the submission could not be judged, if it could not.")
    problem_version = models.CharField(
        max_length=32, help_text="The problem's version when submitted; the judged one once finished."
    )

    queue = models.CharField(max_length=3, choices=Queue.choices, help_text="The queue it was last sent to.")
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="When a message was last sent for it.")
    deliveries = models.PositiveIntegerField(default=0, help_text="Messages sent for it.")
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Times a worker took it.")
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="host and pid of the process judging it.")

    device = models.CharField(max_length=8, blank=True)
    device_name = models.CharField(max_length=100, blank=True)
    torch_version = models.CharField(max_length=40, blank=True)
    sandbox = models.CharField(max_length=200, blank=True)
    judge_version = models.CharField(max_length=16, blank=True)
    tests_total = models.PositiveSmallIntegerField(default=0)
    time_user_ms = models.FloatField(null=True, blank=True)
    time_reference_ms = models.FloatField(null=True, blank=True)
    time_ratio = models.FloatField(null=True, blank=True)
    memory_user_peak_bytes = models.BigIntegerField(null=True, blank=True)
    memory_reference_peak_bytes = models.BigIntegerField(null=True, blank=True)
    memory_ratio = models.FloatField(null=True, blank=True)
    stdout = models.TextField(blank=True)
    stderr = models.TextField(blank=True)
    seed_index = models.PositiveSmallIntegerField(
        null=True, blank=True, editable=False,
        help_text="Which of the problem version's hidden seeds judged it (none before its first judgement, or "
                  "when no hidden test ran); kept when it is judged again, so it meets the same hidden inputs.",
    )
    hints_shown = models.PositiveSmallIntegerField(
        default=0, editable=False, help_text="How many of the problem's hints its author had revealed when sending it.",
    )

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [
            models.Index(fields=["user", "created_at"], name="submission_user_created"),
            models.Index(fields=["user", "problem", "created_at"], name="submission_user_problem"),
            models.Index(fields=["status", "queue", "id"], name="submission_status_queue"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["user", "idempotency_key"], name="one_submission_per_idempotency_key"),
            models.CheckConstraint(
                condition=~models.Q(status=Status.RUNNING) | models.Q(lease_expires_at__isnull=False),
                name="running_submission_holds_a_lease",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.problem_id and self.problem.slug} by {self.user_id and self.user}"

    def get_absolute_url(self) -> str:
        return reverse("submission_detail", args=[self.pk])

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES

    @property
    def accepted(self) -> bool:
        return self.status == Status.FINISHED and self.verdict == Verdict.ACCEPTED


class SubmissionTest(models.Model):
    """One test's outcome, written as the test finishes so the page shows progress."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="results")
    index = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=200)
    status = models.CharField(max_length=24, choices=TestStatus.choices)
    message = models.TextField(blank=True)
    time_ms = models.FloatField(null=True, blank=True)
    peak_bytes = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ("submission", "index")
        constraints = [models.UniqueConstraint(fields=["submission", "index"], name="one_result_per_test")]

    def __str__(self) -> str:
        return f"{self.name}: {self.status}"
