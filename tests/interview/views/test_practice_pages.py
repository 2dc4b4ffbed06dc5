"""The practice pages: the dashboard's due count, streak and chart, and a session worked through over HTTP."""

import re
from datetime import timedelta

import pytest

from interview.models import ItemState, PracticeSession, Rating, ReviewCard
from interview.services.practice import review_record
from tests.interview.factories import ProblemFactory, QuestionFactory, SubmissionFactory, TopicFactory, UserFactory
from tests.interview.study_support import clock, make_set  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db

POINTS = [{"text": "Online softmax with a running max", "phrasings": ["online softmax", "running maximum"]},
          {"text": "Tiles in SRAM", "phrasings": ["tile sram"]},
          {"text": "Recompute in backward", "phrasings": ["recompute backward"]}]


@pytest.fixture
def user_client(client):
    user = UserFactory()
    client.force_login(user)
    client.user = user
    return client


def test_the_dashboard_needs_an_account(client):
    response = client.get("/practice/")
    assert response.status_code == 302 and response.url.startswith("/accounts/login/")


def test_the_dashboard_shows_the_due_count_and_the_streak(user_client, clock):
    user = user_client.user
    for days_ago in (2, 1):
        review_record(user=user, question=QuestionFactory(), rating=Rating.EASY, covered=[],
                      reviewed_at=clock.now - timedelta(days=days_ago))
    SubmissionFactory(user=user, problem=ProblemFactory(title="Stable softmax"), verdict="accepted",
                      finished_at=clock.now)
    for _ in range(2):
        review_record(user=user, question=QuestionFactory(), rating=Rating.AGAIN, covered=[])
    html = user_client.get("/practice/").content.decode()
    assert 'data-due-count="2"' in html
    assert 'data-streak="3"' in html
    assert "Review what is due (2)" in html
    assert "Stable softmax" in html  # solved problems
    assert html.count('class="topic-chart__row"') >= 1 and "<svg" in html


def test_a_topic_session_over_http_answer_reveal_tick_and_rate(user_client, clock):
    topic = TopicFactory(slug="attention")
    question = QuestionFactory(topic=topic, key_points=POINTS, title="FlashAttention")
    response = user_client.post("/practice/start", {"topic": "attention", "timezone": "Europe/Paris"})
    session = PracticeSession.objects.get(user=user_client.user)
    assert response.url == session.get_absolute_url()
    page = user_client.get(response.url).content.decode()
    assert "Your answer, before you look" in page and question.answer_html not in page

    item = session.items.get()
    response = user_client.post(f"/practice/items/{item.pk}/reveal",
                                {"answer": "It computes an **online softmax**, tiles kept in SRAM."})
    page = user_client.get(response.url).content.decode()
    assert question.answer_html in page
    assert "<strong>online softmax</strong>" in page
    ticked = re.findall(r'value="(\d)" checked data-key-point', page)
    assert ticked == ["0", "1"]  # pre-ticked by the matcher

    user_client.post(f"/practice/items/{item.pk}/rate", {"rating": "3", "covered": ["0", "1", "2"]})
    item.refresh_from_db()
    assert item.state == ItemState.RATED and item.review.covered == [0, 1, 2]
    assert ReviewCard.objects.get(user=user_client.user, question=question).last_rating == Rating.GOOD
    assert user_client.user.study_profile.timezone == "Europe/Paris"
    assert "Session complete" in user_client.get(session.get_absolute_url()).content.decode()


def test_a_hostile_practice_answer_is_shown_as_text(user_client, clock):
    question = QuestionFactory(key_points=POINTS)
    session = user_client.post("/practice/start", {"set": make_set(question).slug})
    item = PracticeSession.objects.get().items.get()
    user_client.post(f"/practice/items/{item.pk}/reveal", {"answer": "<script>alert('x')</script> [a](javascript:x)"})
    page = user_client.get(session.url).content.decode()
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    assert "javascript:" not in page


def test_someone_elses_session_is_not_found(user_client, clock):
    other = UserFactory()
    client_session = PracticeSession.objects.create(user=other, started_at=clock.now)
    assert user_client.get(client_session.get_absolute_url()).status_code == 404
