"""Judging on a worker: take a submission, hold its lease, record each test, then finish it or give it back;
and the sweep that recovers what a lost worker or a lost message left behind.

Every write is guarded by the state the writer expects. Taking a submission moves it from queued to running,
increments `attempts` and begins a judgement; from then on the worker writes only while the row is still
running with that attempt number and that judgement (its fencing token). So a second delivery of the message
finds nothing to take, and a worker whose lease ran out while it was stalled cannot overwrite the attempt that
replaced it, nor a judgement begun after a re-judge.
"""

import logging
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from billiard.process import current_process
from django.conf import settings
from django.db import DatabaseError, connections, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from interview.judge import engine
from interview.models import Judgement, JudgementTest, Queue, Status, Submission
from interview.services.submissions import submission_requeue

logger = logging.getLogger(__name__)

SWEEP_BATCH = 200
# A submission given back after a failure of the judge waits this long, doubled per attempt, before the next.
RETRY_DELAY_S = 2.0
# Resending a submission still queued backs off the same way, so a long queue is not flooded with copies.
MAX_RESEND_DOUBLINGS = 6


@dataclass(frozen=True)
class Claim:
    """A submission this process took, and the attempt number and judgement that fence its writes."""

    submission: Submission
    attempt: int
    judgement: Judgement


def pool_gpu_index(device: str) -> int:
    """The GPU this pool process judges on: a GPU worker's pool processes are numbered 0..concurrency-1, one per
    GPU of the host."""
    return (getattr(current_process(), "index", None) or 0) if device == "cuda" else 0


def worker_identity() -> str:
    return f"{socket.gethostname()} pid {os.getpid()}"


def _lease_expiry():
    return timezone.now() + timedelta(seconds=settings.JUDGE_LEASE_SECONDS)


def _held(claim: Claim) -> QuerySet:
    # Attempts start again from 0 when a submission is judged again, so the judgement is what tells this attempt
    # from one of an earlier round of judging that a stalled worker still holds.
    return Submission.objects.filter(pk=claim.submission.pk, status=Status.RUNNING, attempts=claim.attempt,
                                     judgement=claim.judgement)


def submission_claim(*, submission_id: int) -> Claim | None:
    """Take a queued submission for judging and begin its judgement; None when it is not queued (taken already,
    finished, gone)."""
    with transaction.atomic():
        taken = Submission.objects.filter(pk=submission_id, status=Status.QUEUED).update(
            status=Status.RUNNING, attempts=F("attempts") + 1, lease_expires_at=_lease_expiry(),
            worker=worker_identity(),
        )
        if not taken:
            return None
        judgement = Judgement.objects.create(submission_id=submission_id, started_at=timezone.now())
        Submission.objects.filter(pk=submission_id).update(judgement=judgement)
        submission = Submission.objects.select_related("problem", "judgement").get(pk=submission_id)
    return Claim(submission, submission.attempts, judgement)


def submission_lease_renew(*, claim: Claim) -> bool:
    """Push the lease's expiry forward; False when the submission is no longer this attempt's."""
    return bool(_held(claim).update(lease_expires_at=_lease_expiry()))


def submission_test_record(*, claim: Claim, test: engine.TestOutcome) -> bool:
    """Write one finished test, so the page shows progress; renews the lease. False when the lease is lost."""
    with transaction.atomic():
        if not submission_lease_renew(claim=claim):
            return False
        JudgementTest.objects.update_or_create(
            judgement=claim.judgement, index=test.index,
            defaults={"name": test.name, "status": test.status, "message": test.message,
                      "time_ms": test.time_ms, "peak_bytes": test.peak_bytes, "why": test.why},
        )
    return True


def submission_finish(*, claim: Claim, outcome: engine.Outcome) -> bool:
    """End the judgement with the verdict, the figures and every test; False (and nothing written) when the lease
    was lost meanwhile."""
    kept = {"seed_index": outcome.seed_index} if outcome.seed_index is not None else {}
    with transaction.atomic():
        finished = _held(claim).update(status=Status.FINISHED, message="", lease_expires_at=None,
                                       tests_total=len(outcome.tests), **kept)
        if not finished:
            logger.warning("Submission %s: attempt %d lost its lease; its verdict is dropped",
                           claim.submission.pk, claim.attempt)
            return False
        Judgement.objects.filter(pk=claim.judgement.pk).update(finished_at=timezone.now(),
                                                                **outcome.judgement_fields())
        JudgementTest.objects.filter(judgement=claim.judgement).delete()
        JudgementTest.objects.bulk_create(
            JudgementTest(judgement=claim.judgement, index=test.index, name=test.name, status=test.status,
                          message=test.message, time_ms=test.time_ms, peak_bytes=test.peak_bytes, why=test.why)
            for test in outcome.tests
        )
    logger.info("Submission %s finished: %s (attempt %d, %s)", claim.submission.pk, outcome.verdict,
                claim.attempt, outcome.device)
    return True


def submission_give_back(*, claim: Claim, reason: str, seed_index: int | None = None) -> None:
    """The judge could not judge it: queued again after a pause, or error once the attempts are spent.

    seed_index: the hidden seed the failed attempt drew, kept so the next attempt meets the same inputs."""
    kept = {"seed_index": seed_index} if seed_index is not None else {}
    with transaction.atomic():
        _retry_or_fail(claim.submission, _held(claim), attempts=claim.attempt, reason=reason,
                       countdown=RETRY_DELAY_S * 2 ** (claim.attempt - 1), **kept)


def _retry_or_fail(submission: Submission, guard: QuerySet, *, attempts: int, reason: str,
                   countdown: float | None, **fields) -> bool:
    """Queue the submission again, or mark it an error once the attempts are spent; False if guard missed.
    fields: more columns to set either way.

    An error ends the judgement of the last attempt without a verdict, keeping the tests it finished."""
    if attempts >= settings.JUDGE_MAX_ATTEMPTS:
        failure = f"The judge failed {attempts} times; the last time: {reason}"
        failed = guard.update(status=Status.ERROR, lease_expires_at=None, message=failure, **fields)
        if failed:
            # The judgement keeps its own reason: a re-judge clears the submission's message, not its history.
            Judgement.objects.filter(submission=submission, finished_at__isnull=True).update(
                finished_at=timezone.now(), failure=failure)
            logger.error("Submission %s could not be judged after %d attempts: %s", submission.pk, attempts, reason)
        return bool(failed)
    if submission_requeue(submission=submission, guard=guard, countdown=countdown, message=reason, **fields):
        logger.warning("Submission %s queued again after attempt %d: %s", submission.pk, attempts, reason)
        return True
    return False


@contextmanager
def _lease_kept(claim: Claim) -> Iterator[None]:
    """Renew the lease from a thread while the judge runs, since one test can outlast the lease."""
    stop = threading.Event()

    def renew() -> None:
        try:
            while not stop.wait(settings.JUDGE_LEASE_SECONDS / 3):
                try:
                    if not submission_lease_renew(claim=claim):
                        return
                except DatabaseError as error:
                    logger.warning("Submission %s: could not renew the lease: %s", claim.submission.pk, error)
        finally:
            connections.close_all()

    keeper = threading.Thread(target=renew, name=f"lease-{claim.submission.pk}", daemon=True)
    keeper.start()
    try:
        yield
    finally:
        stop.set()
        keeper.join()


def _record_progress(claim: Claim, test: engine.TestOutcome) -> None:
    # Progress is a courtesy: a failed write must not fail the judge (which would turn it into an internal
    # error); the finish writes every test again.
    try:
        submission_test_record(claim=claim, test=test)
    except DatabaseError as error:
        logger.warning("Submission %s: could not record test %s: %s", claim.submission.pk, test.name, error)


def submission_judge(*, submission_id: int, queue: str | None) -> None:
    """Take the submission if it is still queued, judge it on this worker's device, and record the outcome."""
    claim = submission_claim(submission_id=submission_id)
    if claim is None:
        logger.info("Submission %s is not queued (a repeated message, or already judged); nothing to do",
                    submission_id)
        return
    submission = claim.submission
    device = Queue(queue or submission.queue).device
    try:
        with _lease_kept(claim):
            # A stored seed (a re-judge, or an attempt after one the judge failed) is used again, so the same
            # submission meets the same hidden inputs.
            outcome = engine.judge(slug=submission.problem.slug, source=submission.source, suite=submission.suite,
                                    device=device, gpu_index=pool_gpu_index(device), seed_index=submission.seed_index,
                                    on_test=lambda test: _record_progress(claim, test))
    except engine.JudgeUnavailable as error:
        logger.error("Submission %s: the judge cannot run here: %s", submission_id, error)
        submission_give_back(claim=claim, reason=str(error))
        return
    if outcome.retryable:
        failing = next((test for test in outcome.tests if test.status == outcome.verdict), None)
        submission_give_back(claim=claim, reason=failing.message if failing else outcome.verdict,
                             seed_index=outcome.seed_index)
        return
    submission_finish(claim=claim, outcome=outcome)


@dataclass
class SweepReport:
    expired: int = 0
    resent: int = 0


def submissions_sweep() -> SweepReport:
    """Recover lost work: running submissions whose lease ran out, and queued ones whose message may be lost.

    A lease runs out when the worker judging it died (a killed pool process or main process, a lost host).
    A queued submission's message is lost when the broker was down as it was sent, or when the embedded
    queue's worker died holding it; such a submission is sent again after JUDGE_QUEUED_GRACE_SECONDS, and
    again after twice that, and so on.
    """
    report = SweepReport()
    now = timezone.now()
    expired = Submission.objects.filter(status=Status.RUNNING, lease_expires_at__lt=now).select_related("problem")
    for submission in expired[:SWEEP_BATCH]:
        with transaction.atomic():
            guard = Submission.objects.filter(pk=submission.pk, status=Status.RUNNING, attempts=submission.attempts,
                                              judgement=submission.judgement_id, lease_expires_at__lt=now)
            reason = f"the worker judging it ({submission.worker}) stopped renewing its lease"
            if _retry_or_fail(submission, guard, attempts=submission.attempts, reason=reason, countdown=None):
                report.expired += 1
    grace = timedelta(seconds=settings.JUDGE_QUEUED_GRACE_SECONDS)
    waiting = (Submission.objects.filter(status=Status.QUEUED, enqueued_at__lt=now - grace)
               .select_related("problem").order_by("enqueued_at"))
    for submission in waiting[:SWEEP_BATCH]:
        if submission.enqueued_at > now - grace * 2 ** min(max(submission.deliveries - 1, 0), MAX_RESEND_DOUBLINGS):
            continue
        with transaction.atomic():
            guard = Submission.objects.filter(pk=submission.pk, status=Status.QUEUED,
                                              enqueued_at=submission.enqueued_at)
            if submission_requeue(submission=submission, guard=guard):
                report.resent += 1
    if report.expired or report.resent:
        logger.info("Sweep: %d lease(s) expired, %d queued submission(s) sent again", report.expired, report.resent)
    return report
