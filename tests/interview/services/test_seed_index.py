"""The hidden seed a judgement drew is stored with the submission, and used again when it is judged again:
on a re-judge, and on the attempt after one the judge itself failed."""

import dataclasses
from types import SimpleNamespace

import pytest
from django.utils import timezone

from interview.judge import engine
from interview.judge.runs import submission_judge
from interview.models import Status, Submission
from interview.services.submissions import submissions_rejudge
from tests.interview.factories import ProblemFactory, SubmissionFactory
from tests.interview.services.test_judge_runs import outcome

pytestmark = pytest.mark.django_db

DRAWN = 17


@pytest.fixture
def queued():
    return SubmissionFactory(status=Status.QUEUED, verdict="", problem=ProblemFactory(needs="cpu"),
                             enqueued_at=timezone.now(), deliveries=1)


@pytest.fixture
def judge(monkeypatch):
    """A stand-in for the engine: `asked` is the seed index each judgement was given; it draws DRAWN when
    given none, as the runner draws one, and fails itself (an internal error) `failures` times first."""
    calls = SimpleNamespace(asked=[], failures=0)

    def judge(*, seed_index, **_):
        calls.asked.append(seed_index)
        verdict = "internal_error" if calls.failures else "accepted"
        calls.failures = max(0, calls.failures - 1)
        return dataclasses.replace(outcome(verdict), seed_index=DRAWN if seed_index is None else seed_index)

    monkeypatch.setattr(engine, "judge", judge)
    return calls


def test_a_new_submission_lets_the_judge_draw_and_stores_what_it_drew(queued, judge):
    submission_judge(submission_id=queued.pk, queue="cpu")
    queued.refresh_from_db()
    assert judge.asked == [None]
    assert (queued.status, queued.seed_index) == (Status.FINISHED, DRAWN)


def test_a_rejudge_keeps_the_stored_seed_and_passes_it_to_the_judge(
    queued, judge, embedded_queue, django_capture_on_commit_callbacks
):
    submission_judge(submission_id=queued.pk, queue="cpu")
    with django_capture_on_commit_callbacks(execute=True):
        assert submissions_rejudge(submissions=Submission.objects.filter(pk=queued.pk)) == 1
    queued.refresh_from_db()
    assert (queued.status, queued.judgement, queued.seed_index) == (Status.QUEUED, None, DRAWN)
    submission_judge(submission_id=queued.pk, queue="cpu")
    assert judge.asked == [None, DRAWN]
    assert [judgement.seed_index for judgement in queued.judgements.all()] == [DRAWN, DRAWN]


def test_the_attempt_after_a_failure_of_the_judge_meets_the_seed_the_failed_one_drew(
    queued, judge, embedded_queue, django_capture_on_commit_callbacks
):
    judge.failures = 1
    with django_capture_on_commit_callbacks(execute=True):
        submission_judge(submission_id=queued.pk, queue="cpu")
    queued.refresh_from_db()
    assert (queued.status, queued.seed_index) == (Status.QUEUED, DRAWN)
    submission_judge(submission_id=queued.pk, queue="cpu")
    queued.refresh_from_db()
    assert judge.asked == [None, DRAWN]
    assert (queued.status, queued.attempts, queued.seed_index) == (Status.FINISHED, 2, DRAWN)
