"""Submissions: what a user sent, and where it stands with the judge.

A submission moves queued → running → finished, or to error when it could not be judged. Every move is
one guarded UPDATE in interview.services (never a save() of a stale row), so a message delivered twice, a
worker that lost its lease, or two sweeps at once change nothing they should not. `attempts` counts the
times a worker took the submission; it doubles as the fencing token of the lease: a worker writes results
only while the row still carries the attempt number it took, and the judgement that attempt began.

What the judge found is in its judgements (interview.models.judgements), not here: `judgement` points at the
one under way while it runs, and at the last one once it is finished (or an error).
"""

from django.conf import settings
from django.db import models
from django.urls import reverse

from interview.models.judgements import Judgement, Verdict
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


ACTIVE_STATUSES = (Status.QUEUED, Status.RUNNING)


class Submission(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    problem = models.ForeignKey(Problem, on_delete=models.PROTECT, related_name="submissions")
    source = models.TextField()
    suite = models.CharField(max_length=6, choices=Suite.choices, default=Suite.ALL)
    idempotency_key = models.CharField(max_length=64, null=True, blank=True, editable=False)

    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    message = models.TextField(blank=True, help_text="Why the submission could not be judged, if it could not.")
    judgement = models.OneToOneField(
        # Judgements go with their submission (their own foreign key cascades), and this one is checked when
        # the transaction commits, when both halves are gone. SET_NULL would first empty the pointer of a row
        # about to be deleted, which finished_submission_has_a_judgement refuses; deleting the current
        # judgement alone is refused at commit, as it should be.
        Judgement, null=True, blank=True, on_delete=models.DO_NOTHING, related_name="+",
        help_text="The one under way while running, the last one once finished or an error; none while queued.",
    )

    queue = models.CharField(max_length=3, choices=Queue.choices, help_text="The queue it was last sent to.")
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="When a message was last sent for it.")
    deliveries = models.PositiveIntegerField(default=0, help_text="Messages sent for it.")
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Times a worker took it.")
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="host and pid of the process judging it.")

    tests_total = models.PositiveSmallIntegerField(
        default=0, help_text="Tests its suite holds: counted when it is sent, then those its last judgement ran.",
    )
    seed_index = models.PositiveSmallIntegerField(
        null=True, blank=True, editable=False,
        help_text="Which of the problem version's hidden seeds judges it: drawn by its first judgement that ran a "
                  "hidden test (or an attempt the judge failed), then kept, so every later one meets the same "
                  "hidden inputs.",
    )
    hints_shown = models.PositiveSmallIntegerField(
        default=0, editable=False, help_text="How many of the problem's hints its author had revealed when sending it.",
    )
    whys_shown = models.PositiveSmallIntegerField(
        default=0, editable=False,
        help_text="How many failures' whys on the problem its author had opened when sending it (WhyReveal).",
    )

    created_at = models.DateTimeField(auto_now_add=True)

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
            # A running one has its judgement too, set in the transaction that takes it, just after the move.
            models.CheckConstraint(condition=~models.Q(status=Status.QUEUED) | models.Q(judgement__isnull=True),
                                   name="queued_submission_has_no_judgement"),
            models.CheckConstraint(condition=~models.Q(status=Status.FINISHED) | models.Q(judgement__isnull=False),
                                   name="finished_submission_has_a_judgement"),
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
        return self.status == Status.FINISHED and self.judgement.verdict == Verdict.ACCEPTED

