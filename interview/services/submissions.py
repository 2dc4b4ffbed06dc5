"""Writes to submissions from the web side: creating one within the limits, sending it, rejudging.

A submission is committed first and its message sent after the commit, so a worker never looks for a row
that is not there yet; a message that could not be sent (the broker was down) leaves the row queued, and
the sweep (interview.judge.runs) sends it later. Nothing here imports the judge engine.
"""

import enum
import hashlib
import logging
import math
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from interview.judge import queues
from interview.models import Judgement, Problem, Status, Submission, Suite
from interview.models.submissions import ACTIVE_STATUSES
from interview.selectors.hints import hints_shown, whys_shown
from interview.selectors.workers import judge_queue

logger = logging.getLogger(__name__)

RATE_WINDOW = timedelta(minutes=1)


class RefusalReason(enum.StrEnum):
    """Why a write was turned away; interview.views.refusals says what each means in HTTP."""

    INVALID = "invalid"  # the request itself is malformed
    TOO_LARGE = "too_large"
    KEY_REUSED = "key_reused"  # an idempotency key already made a different submission
    RATE_LIMITED = "rate_limited"  # too many submissions in the last minute
    TOO_MANY_QUEUED = "too_many_queued"  # too many of the user's submissions wait to be judged


class Refused(Exception):
    """A write turned away (malformed, too big, too many, too fast): a message for the user and its reason.

    `retry_after`, in seconds, says when the same request may succeed, where waiting helps.
    """

    def __init__(self, message: str, *, reason: RefusalReason, retry_after: int | None = None):
        super().__init__(message)
        self.message, self.reason, self.retry_after = message, reason, retry_after


@dataclass(frozen=True)
class Created:
    submission: Submission
    replayed: bool  # an earlier request with the same idempotency key made it


def source_digest(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def submission_create(*, user, problem: Problem, source: str, suite: str,
                      idempotency_key: str | None = None) -> Created:
    """Queue `source` for judging against `problem`, within the user's limits; Refused if not.

    The same idempotency key returns the submission it made the first time (a double-clicked Submit, a
    retried request), so one click makes one submission. The user's draft is left alone: only the editor
    writes it (interview.services.problems.draft_save), so code sent by a script or from a mock interview
    never replaces what is being typed in the browser.
    """
    if suite not in Suite.values:
        raise Refused(f"tests must be one of {', '.join(Suite.values)}", reason=RefusalReason.INVALID)
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > settings.JUDGE_MAX_SOURCE_BYTES:
        raise Refused(
            f"The source is {size:,} bytes; the limit is {settings.JUDGE_MAX_SOURCE_BYTES:,}.",
            reason=RefusalReason.TOO_LARGE,
        )
    if not idempotency_key:
        return _create(user, problem, source, suite, None)
    try:
        return _create(user, problem, source, suite, idempotency_key)
    except (OperationalError, InterfaceError):
        # The database ended the connection in the middle of the transaction (a restart, a failover, an
        # administrator's pg_terminate_backend), or rolled it back (a deadlock): health checks only catch a
        # connection that died before the request. With a key the transaction runs once more on a new
        # connection, and can never make a second submission: if the first did commit, the key finds it.
        if connection.in_atomic_block:
            raise  # the transaction around this one is lost too
        connection.close()
        return _create(user, problem, source, suite, idempotency_key)


def _create(user, problem: Problem, source: str, suite: str, idempotency_key: str | None) -> Created:
    with transaction.atomic():
        # One user's submissions are created one at a time, so two requests racing cannot both slip under a
        # limit (SQLite serialises every write transaction anyway).
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if idempotency_key:
            earlier = Submission.objects.filter(user=user, idempotency_key=idempotency_key).first()
            if earlier is not None:
                return Created(_replayed(earlier, problem, source, suite), replayed=True)
        _check_limits(user)
        now = timezone.now()
        submission = Submission.objects.create(
            user=user, problem=problem, source=source, suite=suite, idempotency_key=idempotency_key or None,
            queue=judge_queue(problem), enqueued_at=now, deliveries=1,
            tests_total=sum(1 for test in problem.tests if suite == Suite.ALL or test.get("sample")),
            hints_shown=hints_shown(user=user, problem=problem), whys_shown=whys_shown(user=user, problem=problem),
        )
        _publish_on_commit(submission)
    return Created(submission, replayed=False)


def _replayed(earlier: Submission, problem: Problem, source: str, suite: str) -> Submission:
    if (earlier.problem_id, earlier.suite, source_digest(earlier.source)) != (problem.pk, suite, source_digest(source)):
        raise Refused("This idempotency key was already used for a different submission.",
                      reason=RefusalReason.KEY_REUSED)
    return earlier


def _check_limits(user) -> None:
    window_start = timezone.now() - RATE_WINDOW
    recent = list(
        Submission.objects.filter(user=user, created_at__gte=window_start)
        .order_by("created_at").values_list("created_at", flat=True)[: settings.JUDGE_RATE_LIMIT_PER_MINUTE]
    )
    if len(recent) >= settings.JUDGE_RATE_LIMIT_PER_MINUTE:
        wait = max(1, math.ceil((recent[0] - window_start).total_seconds()))
        raise Refused(
            f"You sent {len(recent)} submissions in the last minute, the most allowed; "
            f"try again in {wait} second{'s' if wait != 1 else ''}.",
            reason=RefusalReason.RATE_LIMITED, retry_after=wait,
        )
    waiting = Submission.objects.filter(user=user, status__in=ACTIVE_STATUSES).count()
    if waiting >= settings.JUDGE_MAX_QUEUED_PER_USER:
        raise Refused(
            f"You have {waiting} submissions waiting to be judged, the most allowed at once; "
            "send the next one when one of them has finished.",
            reason=RefusalReason.TOO_MANY_QUEUED, retry_after=5,
        )


def _publish_on_commit(submission: Submission, *, countdown: float | None = None) -> None:
    transaction.on_commit(partial(
        queues.publish, submission_id=submission.pk, queue=submission.queue,
        wall_seconds=submission.problem.wall_seconds, countdown=countdown,
    ))


def submission_requeue(*, submission: Submission, guard: QuerySet, countdown: float | None = None,
                       **fields) -> bool:
    """Move a submission that `guard` still matches back to queued, re-routed, and send it after the commit.

    `guard` is a queryset of this one row with the state the caller saw; when another process moved it
    meanwhile, nothing happens and False comes back. A judgement under way (an attempt given back, or lost with
    its worker) is dropped with its tests: the next attempt begins its own. Ended judgements stay, as history.
    """
    queue = judge_queue(submission.problem)
    moved = guard.update(status=Status.QUEUED, queue=queue, enqueued_at=timezone.now(), judgement=None,
                         deliveries=F("deliveries") + 1, lease_expires_at=None, worker="", **fields)
    if moved:
        Judgement.objects.filter(submission=submission, finished_at__isnull=True).delete()
        submission.queue = queue
        _publish_on_commit(submission, countdown=countdown)
    return bool(moved)


def submissions_rejudge(*, submissions: QuerySet) -> int:
    """Judge these submissions again (after a checker fix, say), each on the hidden seed it drew before, so only
    what changed (a checker, a limit, the judge) can change its verdict; those still waiting are left be.

    Each gets a new judgement; the ones before it stay in its history. Returns how many were queued again.
    """
    count = 0
    for submission in submissions.exclude(status__in=ACTIVE_STATUSES).select_related("problem"):
        with transaction.atomic():
            guard = Submission.objects.filter(pk=submission.pk, status__in=(Status.FINISHED, Status.ERROR))
            if submission_requeue(submission=submission, guard=guard, attempts=0, message=""):
                count += 1
    logger.info("Rejudging %d submission(s)", count)
    return count
