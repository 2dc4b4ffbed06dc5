"""Judging again adds a judgement: the submission shows the newest, and every one before it stays, with its
versions and its tests."""

import dataclasses

import pytest
from django.utils import timezone

from interview.judge.engine import TestOutcome
from interview.judge.runs import submission_claim, submission_finish, submission_give_back
from interview.models import Status, Submission
from interview.services.submissions import submissions_rejudge
from tests.interview.factories import ProblemFactory, SubmissionFactory
from tests.interview.services.test_judge_runs import outcome

pytestmark = pytest.mark.django_db


def judge(submission: Submission, verdict: str, **changes) -> None:
    claim = submission_claim(submission_id=submission.pk)
    tests = [TestOutcome(0, "small", "passed", "", 1.0, 10),
             TestOutcome(1, "large", "passed" if verdict == "accepted" else verdict, "differs", 2.0, 20)]
    assert submission_finish(claim=claim, outcome=dataclasses.replace(outcome(verdict), tests=tests, **changes))


@pytest.fixture
def submission():
    return SubmissionFactory(status=Status.QUEUED, problem=ProblemFactory(needs="cpu"),
                             enqueued_at=timezone.now(), deliveries=1)


def test_a_rejudge_adds_a_judgement_and_keeps_the_one_before_with_its_tests(submission, embedded_queue):
    judge(submission, "wrong_answer", judge_version="0000000000000001", seed_index=5)
    assert submissions_rejudge(submissions=Submission.objects.filter(pk=submission.pk)) == 1
    judge(submission, "accepted", judge_version="0000000000000002", seed_index=5)

    submission.refresh_from_db()
    newest, first = submission.judgements.all()
    assert (submission.status, submission.judgement, submission.seed_index) == (Status.FINISHED, newest, 5)
    assert (newest.verdict, newest.judge_version, newest.seed_index) == ("accepted", "0000000000000002", 5)
    assert (first.verdict, first.judge_version, first.seed_index) == ("wrong_answer", "0000000000000001", 5)
    assert [(test.name, test.status, test.message) for test in first.tests.all()] == [
        ("small", "passed", ""), ("large", "wrong_answer", "differs")]
    assert [test.status for test in newest.tests.all()] == ["passed", "passed"]
    assert first.finished_at <= newest.started_at


def test_while_judged_again_it_shows_no_verdict_and_its_progress_is_the_new_judgements(submission, embedded_queue):
    judge(submission, "wrong_answer")
    submissions_rejudge(submissions=Submission.objects.filter(pk=submission.pk))
    submission.refresh_from_db()
    assert (submission.status, submission.judgement, submission.accepted) == (Status.QUEUED, None, False)

    claim = submission_claim(submission_id=submission.pk)
    submission.refresh_from_db()
    assert submission.judgement == claim.judgement and not submission.judgement.tests.exists()
    assert submission.judgements.count() == 2


def test_a_submission_the_judge_gave_up_on_keeps_that_judgement_when_judged_again(
    submission, settings, embedded_queue
):
    settings.JUDGE_MAX_ATTEMPTS = 1
    claim = submission_claim(submission_id=submission.pk)
    submission_give_back(claim=claim, reason="no usable GPU")
    submissions_rejudge(submissions=Submission.objects.filter(pk=submission.pk))
    judge(submission, "accepted")
    submission.refresh_from_db()
    assert [judgement.verdict for judgement in submission.judgements.all()] == ["accepted", ""]
    assert submission.accepted
