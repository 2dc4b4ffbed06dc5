"""Creating submissions: the row, the message after the commit, the limits, idempotency, rejudging."""

from datetime import timedelta

import psycopg
import pytest
from django.db import DatabaseError, connection
from django.utils import timezone

from interview.models import JudgementTest, ProblemDraft, Status, Submission
from interview.services.problems import draft_save
from interview.services.submissions import RefusalReason, Refused, submission_create, submissions_rejudge
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory
from tests.judging_support import broker, free_port

pytestmark = pytest.mark.django_db
SOURCE = "def solve(x):\n    return x\n"


@pytest.fixture
def problem():
    return ProblemFactory(needs="cpu")


@pytest.fixture
def user():
    return UserFactory()


def create(user, problem, source=SOURCE, suite="all", key=None):
    return submission_create(user=user, problem=problem, source=source, suite=suite, idempotency_key=key)


def test_a_submission_is_queued_with_its_tests_and_no_judgement_yet_and_leaves_the_draft_alone(
    user, problem, embedded_queue, django_capture_on_commit_callbacks
):
    draft_save(user=user, problem=problem, source="# what the editor holds\n")
    with django_capture_on_commit_callbacks(execute=True):
        submission = create(user, problem, suite="sample").submission
    submission.refresh_from_db()
    assert (submission.status, submission.queue, submission.judgement) == ("queued", "cpu", None)
    assert submission.tests_total == 1  # the one sample test
    assert submission.deliveries == 1 and submission.attempts == 0 and submission.enqueued_at is not None
    assert ProblemDraft.objects.get(user=user, problem=problem).source == "# what the editor holds\n"
    assert embedded_queue.taken("cpu") == [submission.pk]


def test_the_message_is_sent_only_after_the_commit(user, problem, embedded_queue, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        create(user, problem)
    assert embedded_queue.taken("cpu") == []
    assert len(callbacks) == 1


def test_a_submission_committed_while_the_broker_is_down_stays_queued(
    user, problem, django_capture_on_commit_callbacks, caplog
):
    with broker(f"redis://127.0.0.1:{free_port()}/0"), django_capture_on_commit_callbacks(execute=True):
        submission = create(user, problem).submission
    submission.refresh_from_db()
    assert submission.status == Status.QUEUED
    assert "the broker is unreachable" in caplog.text


def test_the_same_idempotency_key_returns_the_first_submission(user, problem, embedded_queue):
    first = create(user, problem, key="click-1")
    again = create(user, problem, key="click-1")
    assert (again.submission.pk, again.replayed, first.replayed) == (first.submission.pk, True, False)
    assert Submission.objects.count() == 1


def test_an_idempotency_key_reused_for_other_code_is_refused(user, problem, embedded_queue):
    create(user, problem, key="click-1")
    with pytest.raises(Refused) as refusal:
        create(user, problem, source="other = 1\n", key="click-1")
    assert refusal.value.reason == RefusalReason.KEY_REUSED


def test_idempotency_keys_belong_to_their_user(user, problem, embedded_queue):
    create(user, problem, key="click-1")
    create(UserFactory(), problem, key="click-1")
    assert Submission.objects.count() == 2


def test_a_source_over_the_size_limit_is_refused_as_too_large(user, problem, settings):
    settings.JUDGE_MAX_SOURCE_BYTES = 100
    with pytest.raises(Refused) as refusal:
        create(user, problem, source="#" * 101)
    assert refusal.value.reason == RefusalReason.TOO_LARGE
    assert "101 bytes; the limit is 100" in refusal.value.message
    assert not Submission.objects.exists()


def test_the_size_limit_counts_utf8_bytes_not_characters(user, problem, settings, embedded_queue):
    settings.JUDGE_MAX_SOURCE_BYTES = 100
    with pytest.raises(Refused):
        create(user, problem, source="é" * 51)
    create(user, problem, source="é" * 50)


def test_more_submissions_than_the_rate_limit_in_a_minute_are_refused_with_a_wait(
    user, problem, settings, embedded_queue
):
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 2
    settings.JUDGE_MAX_QUEUED_PER_USER = 10
    create(user, problem)
    create(user, problem)
    with pytest.raises(Refused) as refusal:
        create(user, problem)
    assert refusal.value.reason == RefusalReason.RATE_LIMITED
    assert 1 <= refusal.value.retry_after <= 60
    assert "in the last minute" in refusal.value.message


def test_the_rate_limit_forgets_submissions_older_than_a_minute(user, problem, settings, embedded_queue):
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 1
    old = create(user, problem).submission
    Submission.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(seconds=61),
                                                status=Status.ERROR)
    create(user, problem)


def test_more_waiting_submissions_than_the_cap_are_refused(user, problem, settings, embedded_queue):
    settings.JUDGE_MAX_QUEUED_PER_USER = 2
    create(user, problem)
    running = create(user, problem).submission
    Submission.objects.filter(pk=running.pk).update(status=Status.RUNNING, lease_expires_at=timezone.now())
    with pytest.raises(Refused) as refusal:
        create(user, problem)
    assert refusal.value.reason == RefusalReason.TOO_MANY_QUEUED
    assert "2 submissions waiting" in refusal.value.message
    Submission.objects.filter(pk=running.pk).update(status=Status.ERROR, lease_expires_at=None)
    create(user, problem)


def test_an_unknown_test_suite_is_refused(user, problem):
    with pytest.raises(Refused) as refusal:
        create(user, problem, suite="hidden")
    assert refusal.value.reason == RefusalReason.INVALID


def test_rejudging_queues_it_again_without_a_current_judgement_and_keeps_the_one_before(
    embedded_queue, django_capture_on_commit_callbacks
):
    done = SubmissionFactory(status=Status.FINISHED, verdict="wrong_answer", attempts=2, time_user_ms=3.0,
                             problem_version="old", device="cpu", finished_at=timezone.now())
    JudgementTest.objects.create(judgement=done.judgement, index=0, name="small", status="wrong_answer")
    failed = SubmissionFactory(problem=done.problem, status=Status.ERROR, message="The judge failed 3 times")
    waiting = SubmissionFactory(problem=done.problem, status=Status.QUEUED, verdict="")
    with django_capture_on_commit_callbacks(execute=True):
        count = submissions_rejudge(submissions=Submission.objects.all())
    assert count == 2
    done.refresh_from_db()
    assert (done.status, done.judgement, done.attempts) == ("queued", None, 0)
    [before] = done.judgements.all()
    assert (before.verdict, before.time_user_ms, before.device, before.problem_version) == (
        "wrong_answer", 3.0, "cpu", "old")
    assert [(test.name, test.status) for test in before.tests.all()] == [("small", "wrong_answer")]
    failed.refresh_from_db()
    assert (failed.status, failed.message, failed.judgement, failed.judgements.count()) == ("queued", "", None, 1)
    waiting.refresh_from_db()
    assert waiting.deliveries == 0  # left as it was
    assert sorted(embedded_queue.taken("cpu")) == sorted([done.pk, failed.pk])


@pytest.mark.django_db(transaction=True)
def test_a_keyed_submission_whose_connection_the_database_ends_mid_transaction_is_made_once(
    user, problem, embedded_queue
):
    """The soak's PostgreSQL connection drop: a request already past the health check loses its connection in
    the middle of the INSERT. With an idempotency key the transaction runs again on a new connection."""
    if connection.vendor != "postgresql":
        pytest.skip("ending one backend's connection is PostgreSQL's pg_terminate_backend")
    ended = []

    def end_the_connection_at_the_insert(execute, sql, params, many, context):
        if sql.startswith('INSERT INTO "interview_submission"') and not ended:
            ended.append(connection.connection.info.backend_pid)
            with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
                other.execute("SELECT pg_terminate_backend(%s)", [ended[0]])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(end_the_connection_at_the_insert):
        created = create(user, problem, key="after-a-dropped-connection")
    assert ended and connection.connection.info.backend_pid != ended[0]
    assert list(Submission.objects.filter(user=user).values_list("pk", flat=True)) == [created.submission.pk]
    assert embedded_queue.taken("cpu") == [created.submission.pk]


@pytest.mark.django_db(transaction=True)
def test_without_a_key_a_submission_whose_connection_ends_is_not_sent_again(user, problem, embedded_queue):
    """Without a key nothing tells a commit that happened from one that did not, so the error stands."""
    if connection.vendor != "postgresql":
        pytest.skip("ending one backend's connection is PostgreSQL's pg_terminate_backend")

    def end_the_connection_at_the_insert(execute, sql, params, many, context):
        if sql.startswith('INSERT INTO "interview_submission"'):
            with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
                other.execute("SELECT pg_terminate_backend(%s)", [connection.connection.info.backend_pid])
        return execute(sql, params, many, context)

    with pytest.raises(DatabaseError), connection.execute_wrapper(end_the_connection_at_the_insert):
        create(user, problem)
    connection.close()
    assert not Submission.objects.filter(user=user).exists()
