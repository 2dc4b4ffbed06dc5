"""The admin: submissions read-only with their code and their judgements, the submissions an older judge or an
older problem version judged, and the rejudge actions."""

import pytest

from interview.models import Status, Submission, WorkerState
from interview.services.submissions import submissions_rejudge
from interview.services.workers import worker_heartbeat
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory, judged_as

CURRENT_JUDGE, OLDER_JUDGE = "c0ffee0000000001", "0ld0000000000001"

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def test_a_submission_shows_its_code_highlighted_and_its_results_but_cannot_be_edited(admin_client):
    submission = SubmissionFactory(source="def solve(x):\n    return '<b>'\n")
    submission.judgement.tests.create(index=0, name="small", status="passed", time_ms=1.0)
    response = admin_client.get(f"/admin/interview/submission/{submission.pk}/change/")
    html = response.content.decode()
    assert response.status_code == 200
    assert '<span class="k">def</span>' in html and "'&lt;b&gt;'" in html
    assert ">small<" in html or "small</" in html
    assert 'name="_save"' not in html
    assert admin_client.get("/admin/interview/submission/add/").status_code == 403


def test_the_action_judges_the_selected_submissions_again(admin_client, embedded_queue):
    problem = ProblemFactory(needs="cpu")
    chosen = SubmissionFactory(problem=problem, verdict="wrong_answer")
    left = SubmissionFactory(problem=problem, verdict="accepted")
    response = admin_client.post("/admin/interview/submission/",
                                 {"action": "rejudge", "_selected_action": [chosen.pk]}, follow=True)
    assert "1 submission(s) queued to be judged again" in response.content.decode()
    assert Submission.objects.get(pk=chosen.pk).status == Status.QUEUED
    assert Submission.objects.get(pk=left.pk).status == Status.FINISHED


def test_the_action_judges_every_submission_to_a_problem_again(admin_client, embedded_queue):
    problem, other = ProblemFactory(needs="cpu"), ProblemFactory(needs="cpu")
    one = SubmissionFactory(problem=problem)
    SubmissionFactory(problem=problem)
    untouched = SubmissionFactory(problem=other)
    admin_client.post("/admin/interview/submission/", {"action": "rejudge_problems", "_selected_action": [one.pk]})
    assert Submission.objects.filter(problem=problem, status=Status.QUEUED).count() == 2
    assert Submission.objects.get(pk=untouched.pk).status == Status.FINISHED

    admin_client.post("/admin/interview/problem/", {"action": "rejudge_all", "_selected_action": [other.pk]})
    assert Submission.objects.get(pk=untouched.pk).status == Status.QUEUED


def test_problems_from_git_are_read_only_in_the_admin(admin_client):
    problem = ProblemFactory()
    response = admin_client.get(f"/admin/interview/problem/{problem.pk}/change/")
    assert response.status_code == 200 and 'name="_save"' not in response.content.decode()
    assert admin_client.get("/admin/interview/problem/add/").status_code == 403


def test_the_submission_list_names_verdicts_and_statuses_in_words(admin_client):
    SubmissionFactory(verdict="wrong_answer")
    submission = SubmissionFactory(verdict="time_limit_exceeded")
    submission.judgement.tests.create(index=0, name="large", status="memory_limit_exceeded", time_ms=1.0)
    listing = admin_client.get("/admin/interview/submission/").content.decode()
    assert "Wrong answer" in listing and "Time limit exceeded" in listing
    assert ">wrong_answer<" not in listing and ">time_limit_exceeded<" not in listing
    detail = admin_client.get(f"/admin/interview/submission/{submission.pk}/change/").content.decode()
    assert "Memory limit exceeded" in detail and ">memory_limit_exceeded<" not in detail


def test_a_submission_judged_again_shows_every_judgement_with_its_versions_seed_and_tests(admin_client):
    submission = SubmissionFactory(verdict="wrong_answer", judge_version=OLDER_JUDGE, problem_version="0ld-problem",
                                   seed_index=7, device="cpu", torch_version="2.13.0+cpu")
    submission.judgement.tests.create(index=0, name="large", status="wrong_answer", message="differs at [0, 3]")
    submissions_rejudge(submissions=Submission.objects.filter(pk=submission.pk))
    judged_as(submission, verdict="accepted", judge_version=CURRENT_JUDGE, seed_index=7, device="cuda",
              tests=({"name": "large", "status": "passed"},))
    worker_heartbeat(name="cpu@host", state=WorkerState.READY, queues=["cpu"], judge_version=CURRENT_JUDGE)
    html = admin_client.get(f"/admin/interview/submission/{submission.pk}/change/").content.decode()
    assert html.count('class="judgement"') == 2
    newest, first = html.split('class="judgement"')[1:]
    assert "Accepted" in newest and CURRENT_JUDGE in newest and "CUDA" in newest and "older" not in newest
    assert "Wrong answer" in first and "differs at [0, 3]" in first and "<td>7</td>" in first
    assert f"{OLDER_JUDGE}</code> <strong>older than the workers' now" in first
    assert "0ld-problem</code> <strong>older than the problem's now" in first


@pytest.fixture
def judged_by_each_version():
    """Finished submissions judged by the current judge and problem, by an older judge, by an older version of
    the problem, and by both; and one still waiting and one the judge gave up on."""
    worker_heartbeat(name="cpu@host", state=WorkerState.READY, queues=["cpu"], judge_version=CURRENT_JUDGE)
    problem = ProblemFactory(needs="cpu")
    made = {name: SubmissionFactory(problem=problem, judge_version=judge, **({"problem_version": "0ld"} if old else {}))
            for name, judge, old in (("current", CURRENT_JUDGE, False), ("older_judge", OLDER_JUDGE, False),
                                     ("older_problem", CURRENT_JUDGE, True), ("both", OLDER_JUDGE, True))}
    made["waiting"] = SubmissionFactory(problem=problem, status=Status.QUEUED)
    made["error"] = SubmissionFactory(problem=problem, status=Status.ERROR)
    return made


def listed(admin_client, query: str) -> set[int]:
    response = admin_client.get(f"/admin/interview/submission/?{query}")
    assert response.status_code == 200
    return {row.pk for row in response.context["cl"].result_list}


@pytest.mark.parametrize("judged_by, expected", [
    ("older_judge", {"older_judge", "both"}), ("older_problem", {"older_problem", "both"}),
    ("either", {"older_judge", "older_problem", "both"}),
])
def test_the_list_shows_the_submissions_an_older_judge_or_problem_version_judged(
    admin_client, judged_by_each_version, judged_by, expected
):
    assert listed(admin_client, f"judged_by={judged_by}") == {judged_by_each_version[name].pk for name in expected}


def test_those_submissions_are_judged_again_by_selecting_them_all(admin_client, judged_by_each_version,
                                                                   embedded_queue):
    older = listed(admin_client, "judged_by=either")
    response = admin_client.post("/admin/interview/submission/?judged_by=either",
                                 {"action": "rejudge", "select_across": "1", "index": "0",
                                  "_selected_action": list(older)}, follow=True)
    assert "3 submission(s) queued to be judged again" in response.content.decode()
    assert set(Submission.objects.filter(status=Status.QUEUED, judgement=None).values_list("pk", flat=True)) == (
        older | {judged_by_each_version["waiting"].pk})
    assert listed(admin_client, "judged_by=either") == set()


def test_without_a_worker_no_judge_counts_as_older(admin_client, judged_by_each_version):
    worker_heartbeat(name="cpu@host", state=WorkerState.STOPPED)
    assert listed(admin_client, "judged_by=older_judge") == set()
    assert "no worker reports its judge now" in admin_client.get("/admin/interview/submission/").content.decode()
