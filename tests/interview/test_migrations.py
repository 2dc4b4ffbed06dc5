"""The migrations describe the models exactly, and move the data they reshape."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from interview.models import Judgement, Submission

BEFORE_JUDGEMENTS = ("interview", "0014_worker_judge_version")


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    call_command("makemigrations", "interview", "--check", "--dry-run", verbosity=0)


def models_at(target):
    return MigrationExecutor(connection).loader.project_state(target).apps


def migrate_to(target=None):
    """Migrate interview to target (a migration's name), or to its latest migration."""
    call_command("migrate", "interview", *([target[1]] if target else []), verbosity=0)


@pytest.fixture
def before_judgements():
    """The database as it was before judgements had a table, put back to the latest schema afterwards."""
    migrate_to(BEFORE_JUDGEMENTS)
    try:
        yield models_at(BEFORE_JUDGEMENTS)
    finally:
        migrate_to()


@pytest.mark.django_db(transaction=True)
def test_each_submission_a_worker_took_becomes_its_first_judgement_with_its_tests_and_back(before_judgements):
    old = before_judgements
    user = old.get_model("auth", "User").objects.create(username="ada")
    problem = old.get_model("interview", "Problem").objects.create(
        slug="mhsa", title="MHSA", difficulty="easy", statement_markdown="", statement_html="", starter_code="",
        explanation_markdown="", explanation_html="", version="v2")
    OldSubmission, OldTest = old.get_model("interview", "Submission"), old.get_model("interview", "SubmissionTest")
    began = timezone.now() - timedelta(minutes=5)
    ended = began + timedelta(seconds=3)

    def submission(status, **fields):
        return OldSubmission.objects.create(user=user, problem=problem, source="x = 1\n", status=status, queue="cpu",
                                            problem_version="v1", **fields)

    finished = submission("finished", verdict="wrong_answer", judge_version="1.0", seed_index=4, device="cpu",
                          torch_version="2.13.0+cpu", sandbox="bubblewrap", time_user_ms=3.0, time_ratio=2.0,
                          memory_user_peak_bytes=2048, stdout="out", started_at=began, finished_at=ended, attempts=1)
    running = submission("running", started_at=began, lease_expires_at=ended, attempts=1)
    failed = submission("error", message="The judge failed 3 times", started_at=began, finished_at=ended)
    queued = submission("queued")
    for owner, index, status in ((finished, 0, "passed"), (finished, 1, "wrong_answer"), (running, 0, "passed"),
                                 (failed, 0, "passed"), (queued, 0, "passed")):
        OldTest.objects.create(submission=owner, index=index, name=f"t{index}", status=status, message=f"m{index}")

    migrate_to()
    judgement = Submission.objects.get(pk=finished.pk).judgement
    assert (judgement.verdict, judgement.problem_version, judgement.judge_version, judgement.seed_index) == (
        "wrong_answer", "v1", "1.0", 4)
    assert (judgement.device, judgement.torch_version, judgement.sandbox, judgement.stdout) == (
        "cpu", "2.13.0+cpu", "bubblewrap", "out")
    assert (judgement.time_user_ms, judgement.time_ratio, judgement.memory_user_peak_bytes) == (3.0, 2.0, 2048)
    assert (judgement.started_at, judgement.finished_at) == (began, ended)
    assert [(test.index, test.status, test.message) for test in judgement.tests.all()] == [
        (0, "passed", "m0"), (1, "wrong_answer", "m1")]
    under_way = Submission.objects.get(pk=running.pk).judgement
    assert (under_way.verdict, under_way.finished_at, under_way.tests.count()) == ("", None, 1)
    gave_up = Submission.objects.get(pk=failed.pk).judgement
    assert (gave_up.verdict, gave_up.finished_at, gave_up.tests.count()) == ("", ended, 1)
    assert Submission.objects.get(pk=queued.pk).judgement is None
    assert Judgement.objects.count() == 3

    migrate_to(BEFORE_JUDGEMENTS)
    back = OldSubmission.objects.get(pk=finished.pk)
    assert (back.verdict, back.problem_version, back.judge_version, back.seed_index, back.time_ratio) == (
        "wrong_answer", "v1", "1.0", 4, 2.0)
    assert (back.started_at, back.finished_at) == (began, ended)
    assert list(OldTest.objects.filter(submission=back).values_list("index", "status")) == [
        (0, "passed"), (1, "wrong_answer")]
    assert OldSubmission.objects.get(pk=running.pk).finished_at is None
    # A queued one is judged against the problem's version of now, which is what it shows.
    assert OldSubmission.objects.get(pk=queued.pk).problem_version == "v2"
    assert not OldTest.objects.filter(submission=queued.pk).exists()
