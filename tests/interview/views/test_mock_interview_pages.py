"""The mock interview pages: starting, resuming, refusing late answers, and a report that escapes answers."""

import json
import re
from datetime import timedelta

import pytest

from interview.models import MockInterview, MockInterviewItem
from interview.services.mock_interviews import mock_interview_submit
from tests.interview.factories import QuestionFactory, UserFactory, judged_as
from tests.interview.study_support import START, clock, make_set  # noqa: F401  (a fixture)
from tests.judging_support import SOFTMAX_REFERENCE

pytestmark = pytest.mark.django_db

POINTS = [{"text": "Online softmax with a running max", "phrasings": ["online softmax", "running maximum"]},
          {"text": "Tiles in SRAM", "phrasings": ["tile sram"]}]
HOSTILE = "<script>alert('owned')</script> <img src=x onerror=alert(1)> An online softmax. [click](javascript:alert(1))"


@pytest.fixture
def user_client(client):
    user = UserFactory()
    client.force_login(user)
    client.user = user
    return client


@pytest.fixture
def started(user_client, clock):
    problem_set = make_set(QuestionFactory(key_points=POINTS, title="FlashAttention"), QuestionFactory())
    response = user_client.post("/mock-interviews/start", {"set": problem_set.slug, "duration": "30"})
    interview = MockInterview.objects.get(user=user_client.user)
    assert response.url == f"/mock-interviews/{interview.pk}/items/1/"
    return interview


def test_the_page_shows_the_servers_end_and_a_reload_does_not_move_it(user_client, clock, started):
    html = user_client.get("/mock-interviews/%d/items/1/" % started.pk).content.decode()
    assert 'data-ends-at="2026-03-02T09:30:00+00:00"' in html
    assert "30:00" in html
    clock.advance(minutes=12)
    html = user_client.get("/mock-interviews/%d/items/1/" % started.pk).content.decode()
    assert 'data-ends-at="2026-03-02T09:30:00+00:00"' in html and "18:00" in html


def test_an_answer_posted_after_the_end_is_refused_with_a_clear_message(user_client, clock, started):
    clock.advance(minutes=30, seconds=1)
    response = user_client.post(f"/mock-interviews/{started.pk}/items/1/answer", {"answer": "late"}, follow=True)
    assert "Time is up: this interview ended at 09:30:00 UTC" in response.content.decode()
    assert MockInterviewItem.objects.get(interview=started, position=1).answer == ""


def test_the_draft_api_answers_409_after_the_end(user_client, clock, started):
    url = f"/api/mock-interviews/{started.pk}/items/1/draft"
    assert user_client.put(url, json.dumps({"source": "thinking"}), content_type="application/json").status_code == 204
    clock.advance(minutes=31)
    response = user_client.put(url, json.dumps({"source": "more"}), content_type="application/json")
    assert response.status_code == 409 and "Time is up" in response.json()["error"]
    assert MockInterviewItem.objects.get(interview=started, position=1).draft == "thinking"


def test_the_report_waits_for_the_end_then_opens_without_a_finish(user_client, clock, started):
    assert user_client.get(f"/mock-interviews/{started.pk}/report/").status_code == 302
    clock.advance(minutes=30)
    response = user_client.get(f"/mock-interviews/{started.pk}/")
    assert response.url == f"/mock-interviews/{started.pk}/report/"
    assert user_client.get(response.url).status_code == 200
    started.refresh_from_db()
    assert started.finished_at == START + timedelta(minutes=30)


def test_the_report_escapes_a_hostile_answer_and_states_the_score_formula(user_client, clock, started):
    user_client.post(f"/mock-interviews/{started.pk}/items/1/answer", {"answer": HOSTILE})
    clock.advance(minutes=5)
    user_client.post(f"/mock-interviews/{started.pk}/finish")
    html = user_client.get(f"/mock-interviews/{started.pk}/report/").content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html
    assert "<img src=x" not in html
    assert "javascript:" not in html
    assert "share of its key points your answer covered" in html
    assert 'data-score>25%<' in html  # 1 of 2 key points, and an unanswered question
    assert "Practise" in html  # a link to drill the weakest topic


def test_correcting_the_key_points_on_the_report_updates_the_score(user_client, clock, started):
    user_client.post(f"/mock-interviews/{started.pk}/items/1/answer", {"answer": "An online softmax."})
    clock.advance(minutes=30)
    response = user_client.post(f"/mock-interviews/{started.pk}/items/1/key-points", {"covered": ["0", "1"]})
    assert response.url == f"/mock-interviews/{started.pk}/report/#item-1"
    html = user_client.get(f"/mock-interviews/{started.pk}/report/").content.decode()
    assert 'data-score>50%<' in html and "corrected by you" in html


def test_another_users_interview_is_not_found(client, started):
    client.force_login(UserFactory())
    assert client.get(f"/mock-interviews/{started.pk}/items/1/").status_code == 404
    assert client.get(f"/mock-interviews/{started.pk}/report/").status_code == 404


def test_past_interviews_are_listed_with_their_scores_and_reports(user_client, clock, started):
    user_client.post(f"/mock-interviews/{started.pk}/items/1/answer", {"answer": "An online softmax, tiles in SRAM."})
    html = user_client.get("/mock-interviews/").content.decode()
    assert "On the clock" in html and f'href="/mock-interviews/{started.pk}/"' in html
    clock.advance(hours=1)
    html = user_client.get("/mock-interviews/").content.decode()
    assert f'href="/mock-interviews/{started.pk}/report/"' in html
    assert '<td class="num">50%</td>' in html


def test_code_posted_without_javascript_is_judged_for_the_interview_until_the_end(
    client, clock, softmax, embedded_queue, django_capture_on_commit_callbacks
):
    from interview.models import Submission
    from tests.judging_support import SOFTMAX_REFERENCE

    user = UserFactory()
    client.force_login(user)
    response = client.post("/mock-interviews/start", {"set": make_set(softmax, slug="code").slug, "duration": "30"})
    interview = MockInterview.objects.get(user=user)
    url = f"/mock-interviews/{interview.pk}/items/1/submit"
    assert f'action="{url}"' in client.get(response.url).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"source": SOFTMAX_REFERENCE, "tests": "all"})
    submission = Submission.objects.get()
    assert response.url == submission.get_absolute_url()
    assert submission.mock_interview_attempt.item.interview == interview
    assert embedded_queue.taken() == [submission.pk]
    clock.advance(minutes=30)
    response = client.post(url, {"source": SOFTMAX_REFERENCE, "tests": "all"})
    assert response.url == f"/mock-interviews/{interview.pk}/report/"
    assert Submission.objects.count() == 1


def test_the_report_lists_every_submission_of_a_coding_item_with_its_verdict(user_client, clock, softmax,
                                                                             embedded_queue):
    problem_set = make_set(softmax)
    user_client.post("/mock-interviews/start", {"set": problem_set.slug, "duration": "30"})
    interview = MockInterview.objects.get(user=user_client.user)
    coding = MockInterviewItem.objects.get(interview=interview, position=1)
    verdicts = ("runtime_error", "wrong_answer", "accepted")
    submissions = []
    for verdict in verdicts:
        created = mock_interview_submit(item=coding, source=SOFTMAX_REFERENCE, suite="all")
        submissions.append(judged_as(created.submission, verdict=verdict, tests=(
            {"name": "small", "status": "passed" if verdict == "accepted" else verdict},)))
        clock.advance(minutes=1)
    queued = mock_interview_submit(item=coding, source=SOFTMAX_REFERENCE, suite="all").submission
    clock.advance(minutes=30)
    html = user_client.get(f"/mock-interviews/{interview.pk}/report/").content.decode()
    listed = re.findall(r'<li><span class="verdict verdict--(\w+)">([^<]+)</span> <a href="[^"]+">submission #(\d+)</a>'
                        r"[^<]*?( · the one that counts)?</li>", html)
    assert listed == [
        ("runtime_error", "Runtime error", str(submissions[0].pk), ""),
        ("wrong_answer", "Wrong answer", str(submissions[1].pk), ""),
        ("accepted", "Accepted", str(submissions[2].pk), " · the one that counts"),
        ("queued", "Queued", str(queued.pk), ""),
    ]
