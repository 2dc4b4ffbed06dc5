"""The judging state machine: guarded moves, double delivery, leases as fencing tokens, giving back, the sweep."""

from datetime import timedelta

import pytest
from django.db import IntegrityError
from django.utils import timezone

from interview.judge.engine import Outcome, TestOutcome
from interview.models import JudgementTest, Status, Submission
from interview.judge.runs import (submission_claim, submission_finish, submission_give_back,
                                           submission_lease_renew, submission_test_record, submissions_sweep)
from interview.services.submissions import submission_requeue, submissions_rejudge
from tests.interview.factories import ProblemFactory, SubmissionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued():
    return SubmissionFactory(status=Status.QUEUED, verdict="", problem=ProblemFactory(needs="cpu"),
                             enqueued_at=timezone.now(), deliveries=1)


def outcome(verdict="accepted", tests=("small", "large", "timed")) -> Outcome:
    return Outcome(
        verdict=verdict,
        tests=[TestOutcome(index, name, "passed", "", 1.5, 1024) for index, name in enumerate(tests)],
        device="cpu", device_name="", torch_version="2.13.0+cpu", sandbox="bubblewrap", judge_version="1.0",
        problem_version="fedcba9876543210", time_user_ms=1.5, time_reference_ms=1.2, time_ratio=1.25,
        memory_user_peak_bytes=1024, memory_reference_peak_bytes=1024, memory_ratio=1.0, stdout="", stderr="",
    )


def test_claiming_moves_a_queued_submission_to_running_with_a_lease_an_attempt_and_a_judgement_begun(queued):
    claim = submission_claim(submission_id=queued.pk)
    queued.refresh_from_db()
    assert (queued.status, queued.attempts, claim.attempt) == ("running", 1, 1)
    assert queued.lease_expires_at > timezone.now() and queued.judgement.started_at is not None
    assert (queued.judgement, queued.judgement.verdict, queued.judgement.finished_at) == (claim.judgement, "", None)
    assert "pid" in queued.worker


def test_a_second_delivery_of_the_same_message_claims_nothing(queued):
    assert submission_claim(submission_id=queued.pk) is not None
    assert submission_claim(submission_id=queued.pk) is None
    queued.refresh_from_db()
    assert queued.attempts == 1


@pytest.mark.parametrize("status", [Status.FINISHED, Status.ERROR])
def test_a_judged_submission_is_never_claimed_again(status):
    done = SubmissionFactory(status=status)
    assert submission_claim(submission_id=done.pk) is None


def test_a_message_for_a_submission_that_no_longer_exists_claims_nothing():
    assert submission_claim(submission_id=987654) is None


def test_finishing_records_the_verdict_figures_and_every_test(queued):
    claim = submission_claim(submission_id=queued.pk)
    assert submission_finish(claim=claim, outcome=outcome())
    queued.refresh_from_db()
    judgement = queued.judgement
    assert (queued.status, judgement.verdict, queued.lease_expires_at) == ("finished", "accepted", None)
    assert (judgement.problem_version, judgement.torch_version, judgement.time_ratio) == (
        "fedcba9876543210", "2.13.0+cpu", 1.25)
    assert (judgement.judge_version, judgement.finished_at is not None) == ("1.0", True)
    assert list(judgement.tests.values_list("index", "name")) == [(0, "small"), (1, "large"), (2, "timed")]


def test_tests_are_written_as_they_finish_and_renew_the_lease(queued):
    claim = submission_claim(submission_id=queued.pk)
    Submission.objects.filter(pk=queued.pk).update(lease_expires_at=timezone.now() + timedelta(seconds=1))
    assert submission_test_record(claim=claim, test=TestOutcome(0, "small", "passed", "", 1.0, 10))
    queued.refresh_from_db()
    assert queued.lease_expires_at > timezone.now() + timedelta(seconds=30)
    assert queued.judgement.tests.get().name == "small"


def test_a_worker_that_lost_its_lease_can_write_nothing(queued):
    stale = submission_claim(submission_id=queued.pk)
    # Its lease ran out; the sweep queued it again and another worker took it.
    Submission.objects.filter(pk=queued.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    submissions_sweep()
    current = submission_claim(submission_id=queued.pk)
    assert current.attempt == 2

    assert not submission_lease_renew(claim=stale)
    assert not submission_test_record(claim=stale, test=TestOutcome(0, "small", "wrong_answer", "stale", None, None))
    assert not submission_finish(claim=stale, outcome=outcome("wrong_answer"))
    assert submission_finish(claim=current, outcome=outcome("accepted"))
    queued.refresh_from_db()
    assert (queued.status, queued.judgement.verdict, queued.attempts) == ("finished", "accepted", 2)
    assert not JudgementTest.objects.filter(judgement__submission=queued, message="stale").exists()
    assert list(queued.judgements.all()) == [current.judgement]


def test_a_worker_left_over_from_before_a_rejudge_can_write_nothing(queued, embedded_queue):
    stale = submission_claim(submission_id=queued.pk)
    Submission.objects.filter(pk=queued.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    submissions_sweep()
    assert submission_finish(claim=submission_claim(submission_id=queued.pk), outcome=outcome("wrong_answer"))
    submissions_rejudge(submissions=Submission.objects.filter(pk=queued.pk))
    # Attempts count again from 0, so the new attempt carries the stalled worker's number.
    current = submission_claim(submission_id=queued.pk)
    assert current.attempt == stale.attempt == 1

    assert not submission_lease_renew(claim=stale)
    assert not submission_test_record(claim=stale, test=TestOutcome(0, "small", "wrong_answer", "stale", None, None))
    assert not submission_finish(claim=stale, outcome=outcome("wrong_answer"))
    queued.refresh_from_db()
    assert (queued.status, queued.judgement) == ("running", current.judgement)
    assert not JudgementTest.objects.filter(judgement__submission=queued, message="stale").exists()


def test_a_new_attempt_starts_without_the_results_of_the_one_that_died(queued):
    claim = submission_claim(submission_id=queued.pk)
    submission_test_record(claim=claim, test=TestOutcome(0, "small", "passed", "", 1.0, 10))
    Submission.objects.filter(pk=queued.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    submissions_sweep()
    submission_claim(submission_id=queued.pk)
    assert not JudgementTest.objects.filter(judgement__submission=queued).exists()
    assert queued.judgements.count() == 1


def test_a_running_submission_must_hold_a_lease(queued):
    with pytest.raises(IntegrityError):
        Submission.objects.filter(pk=queued.pk).update(status=Status.RUNNING, lease_expires_at=None)


def test_a_submission_the_judge_could_not_judge_goes_back_to_the_queue_after_a_pause(
    queued, embedded_queue, django_capture_on_commit_callbacks
):
    claim = submission_claim(submission_id=queued.pk)
    with django_capture_on_commit_callbacks(execute=True):
        submission_give_back(claim=claim, reason="refusing to judge without the sandbox")
    queued.refresh_from_db()
    assert (queued.status, queued.attempts, queued.deliveries) == ("queued", 1, 2)
    assert queued.message == "refusing to judge without the sandbox" and queued.worker == ""
    # The attempt's judgement never ended: the next attempt begins its own.
    assert (queued.judgement, queued.judgements.count()) == (None, 0)
    # Sent with a countdown: a worker holds it until then, so it is on the queue now.
    assert embedded_queue.taken("cpu") == [queued.pk]


def test_after_the_last_attempt_a_submission_is_an_error_saying_why(queued, settings, embedded_queue):
    settings.JUDGE_MAX_ATTEMPTS = 2
    for _ in range(2):
        claim = submission_claim(submission_id=queued.pk)
        submission_test_record(claim=claim, test=TestOutcome(0, "small", "passed", "", 1.0, 10))
        submission_give_back(claim=claim, reason="no usable GPU")
    queued.refresh_from_db()
    assert (queued.status, queued.attempts) == ("error", 2)
    assert queued.message == "The judge failed 2 times; the last time: no usable GPU"
    assert queued.lease_expires_at is None
    # The last attempt's judgement ends there, without a verdict, with the tests it finished.
    assert list(queued.judgements.all()) == [claim.judgement]
    assert (queued.judgement.verdict, queued.judgement.finished_at is not None) == ("", True)
    assert [test.name for test in queued.judgement.tests.all()] == ["small"]
    # Its reason stays with it, so a re-judge that clears the submission's message keeps the history's.
    assert queued.judgement.failure == queued.message


def test_the_sweep_queues_again_a_running_submission_whose_lease_expired(
    queued, embedded_queue, django_capture_on_commit_callbacks
):
    submission_claim(submission_id=queued.pk)
    Submission.objects.filter(pk=queued.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        report = submissions_sweep()
    assert report.expired == 1
    queued.refresh_from_db()
    assert (queued.status, queued.lease_expires_at, queued.attempts) == ("queued", None, 1)
    assert "stopped renewing its lease" in queued.message
    assert embedded_queue.taken("cpu") == [queued.pk]


def test_the_sweep_leaves_a_running_submission_whose_lease_holds(queued, embedded_queue):
    submission_claim(submission_id=queued.pk)
    assert submissions_sweep().expired == 0
    queued.refresh_from_db()
    assert queued.status == Status.RUNNING


def test_the_sweep_marks_an_error_when_the_last_attempt_lost_its_worker(queued, settings, embedded_queue):
    settings.JUDGE_MAX_ATTEMPTS = 1
    submission_claim(submission_id=queued.pk)
    Submission.objects.filter(pk=queued.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    submissions_sweep()
    queued.refresh_from_db()
    assert queued.status == Status.ERROR
    assert "stopped renewing its lease" in queued.message


def test_the_sweep_sends_again_a_submission_left_queued_past_the_grace_then_backs_off(
    queued, settings, embedded_queue, django_capture_on_commit_callbacks
):
    settings.JUDGE_QUEUED_GRACE_SECONDS = 60
    assert submissions_sweep().resent == 0  # just sent

    Submission.objects.filter(pk=queued.pk).update(enqueued_at=timezone.now() - timedelta(seconds=61))
    with django_capture_on_commit_callbacks(execute=True):
        assert submissions_sweep().resent == 1
    assert embedded_queue.taken("cpu") == [queued.pk]
    queued.refresh_from_db()
    assert queued.deliveries == 2

    # The second resend waits twice the grace.
    Submission.objects.filter(pk=queued.pk).update(enqueued_at=timezone.now() - timedelta(seconds=100))
    assert submissions_sweep().resent == 0
    Submission.objects.filter(pk=queued.pk).update(enqueued_at=timezone.now() - timedelta(seconds=121))
    assert submissions_sweep().resent == 1


def test_two_sweeps_at_once_resend_a_submission_once(queued, settings, embedded_queue):
    settings.JUDGE_QUEUED_GRACE_SECONDS = 60
    seen = timezone.now() - timedelta(seconds=61)
    Submission.objects.filter(pk=queued.pk).update(enqueued_at=seen)
    queued.refresh_from_db()
    # Another worker's sweep resent it between this sweep's read and its update.
    assert submission_requeue(
        submission=queued, guard=Submission.objects.filter(pk=queued.pk, status=Status.QUEUED, enqueued_at=seen))
    assert not submission_requeue(
        submission=queued, guard=Submission.objects.filter(pk=queued.pk, status=Status.QUEUED, enqueued_at=seen))
