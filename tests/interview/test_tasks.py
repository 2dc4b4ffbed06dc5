"""The judge task's body, run eagerly in this process with the real judge and sandbox (no worker)."""

import os
import re

import pytest

import runner
from interview.models import Status, Submission
from interview.services.submissions import submission_create
from interview.judge.tasks import judge_submission
from tests.interview.factories import UserFactory
from runner import sandbox
from tests.judging_support import SOFTMAX_REFERENCE, SOFTMAX_WRONG

pytestmark = [pytest.mark.django_db, pytest.mark.sandbox, pytest.mark.slow]


@pytest.fixture
def judged(softmax, settings, tmp_path, embedded_queue):
    """Submit source to stable-softmax's sample tests and run the task body; the submission afterwards."""
    settings.CONTENT_DIR = tmp_path / "content"

    def judge(source: str) -> Submission:
        submission = submission_create(user=UserFactory(), problem=softmax, source=source, suite="sample").submission
        judge_submission.apply(args=[submission.pk]).get()
        submission.refresh_from_db()
        return submission

    return judge


def test_the_reference_is_accepted_with_each_test_its_device_and_pytorch_version(judged, settings):
    submission = judged(SOFTMAX_REFERENCE)
    assert (submission.status, submission.judgement.verdict, submission.attempts) == ("finished", "accepted", 1)
    results = list(submission.judgement.tests.all())
    assert [r.name for r in results] == ["rows-last-dim", "large-magnitude", "middle-dim-float64"]
    assert all(r.status == "passed" and r.time_ms is not None and r.peak_bytes for r in results)
    judgement = submission.judgement
    assert judgement.device == "cpu" and judgement.torch_version.startswith("2.")
    assert judgement.problem_version == submission.problem.version
    assert judgement.judge_version == runner.version.current()
    # The runner's words for how the code was isolated, as this machine allows: bubblewrap under a uid of the
    # judge's own (a slot above JUDGE_SANDBOX_UID_BASE when the judge runs as root, the sandbox forked from a
    # zygote on the CPU), or the plain process.
    if sandbox.describe(runner.SandboxOptions()) == sandbox.PLAIN:
        assert judgement.sandbox == sandbox.PLAIN
    elif os.geteuid() == 0:
        slot = re.fullmatch(r"bubblewrap\+seccomp(, forked from a zygote)? \(uid (\d+)\)", judgement.sandbox)
        assert slot, judgement.sandbox
        base = settings.JUDGE_SANDBOX_UID_BASE
        assert base <= int(slot[2]) < base + runner.SandboxOptions().slots
    else:
        assert judgement.sandbox == f"bubblewrap+seccomp (user namespace, uid {os.geteuid()})"


def test_a_wrong_answer_is_a_verdict_with_the_tests_message(judged):
    submission = judged(SOFTMAX_WRONG)
    assert (submission.status, submission.judgement.verdict, submission.attempts) == ("finished", "wrong_answer", 1)
    failing = submission.judgement.tests.exclude(status__in=("passed", "skipped")).first()
    assert failing.status == "wrong_answer" and failing.message


def test_code_that_crashes_is_a_verdict_not_a_retry(judged):
    submission = judged("def softmax(x, dim=-1):\n    raise RuntimeError('boom')\n")
    assert (submission.status, submission.judgement.verdict, submission.attempts) == ("finished", "runtime_error", 1)
    assert "boom" in submission.judgement.tests.first().message


def test_when_the_judge_cannot_run_the_submission_is_retried_then_marked_an_error(judged, settings, tmp_path):
    settings.JUDGE_MAX_ATTEMPTS = 2
    settings.CONTENT_DIR = tmp_path / "elsewhere"  # the package is not where the worker looks
    submission = judged(SOFTMAX_REFERENCE)
    assert (submission.status, submission.attempts) == ("queued", 1)
    assert "no problem 'stable-softmax'" in submission.message
    judge_submission.apply(args=[submission.pk]).get()
    submission.refresh_from_db()
    assert (submission.status, submission.attempts) == ("error", 2)
    assert submission.message.startswith("The judge failed 2 times; the last time: no problem")


def test_a_repeated_message_for_a_judged_submission_does_nothing(judged):
    submission = judged(SOFTMAX_REFERENCE)
    judge_submission.apply(args=[submission.pk]).get()
    again = Submission.objects.get(pk=submission.pk)
    assert (again.status, again.attempts, again.judgement) == (Status.FINISHED, 1, submission.judgement)
    assert again.judgement.finished_at == submission.judgement.finished_at and again.judgements.count() == 1
