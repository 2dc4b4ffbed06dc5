"""The admin: questions written there are editable; questions synced from git are read-only."""

import json

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from interview.models import Judgement, Origin, Question, Submission
from tests.interview.factories import QuestionFactory, SubmissionFactory, TopicFactory, key_points

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(
        django_user_model.objects.create_superuser("admin", "admin@example.com", "a long passphrase")
    )
    return client


def question_form(topic, **overrides) -> dict:
    return {
        "title": "My own question",
        "slug": "my-own-question",
        "topic": topic.pk,
        "difficulty": "medium",
        "source": "",
        "prompt": "Why?",
        "answer_markdown": "Because **reasons**.\n\n```python\nclass MHSA:\n    pass\n```\n",
        "key_points": json.dumps(key_points()),
        "related": [],
        "retired_at_0": "",
        "retired_at_1": "",
        **overrides,
    }


def test_the_question_list_filters_by_topic_difficulty_origin_and_status(admin_client):
    topic = TopicFactory()
    QuestionFactory(topic=topic, difficulty="hard", origin=Origin.FILE, title="From git")
    QuestionFactory(topic=topic, difficulty="easy", origin=Origin.ADMIN, title="From the admin")
    url = reverse("admin:interview_question_changelist")
    response = admin_client.get(
        url, {"origin": "file", "difficulty": "hard", "retired": "no", "topic__id__exact": topic.pk}
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "From git" in html and "From the admin" not in html
    assert "From the admin" in admin_client.get(url, {"q": "admin"}).content.decode()


def test_a_question_written_in_the_admin_is_saved_with_its_answer_rendered(admin_client):
    topic = TopicFactory()
    response = admin_client.post(reverse("admin:interview_question_add"), question_form(topic))
    assert response.status_code == 302, response.content.decode()[:2000]
    question = Question.objects.get(slug="my-own-question")
    assert question.origin == Origin.ADMIN
    assert "<strong>reasons</strong>" in question.answer_html
    assert '<span class="nc">MHSA</span>' in question.answer_html


def test_key_points_written_in_the_admin_are_validated_like_files(admin_client):
    topic = TopicFactory()
    form = question_form(topic, key_points=json.dumps([{"text": "only one", "phrasings": ["a", "b"]}]))
    response = admin_client.post(reverse("admin:interview_question_add"), form)
    assert response.status_code == 200
    assert "key_points: needs 3 to 6 points, found 1" in response.content.decode()
    assert not Question.objects.exists()


def test_an_admin_question_can_be_edited(admin_client):
    question = QuestionFactory(origin=Origin.ADMIN)
    form = question_form(question.topic, slug=question.slug, answer_markdown="Edited *answer*.")
    response = admin_client.post(reverse("admin:interview_question_change", args=[question.pk]), form)
    assert response.status_code == 302
    question.refresh_from_db()
    assert question.answer_html == "<p>Edited <em>answer</em>.</p>"


def test_a_question_synced_from_git_can_be_viewed_but_not_changed_or_deleted(admin_client):
    question = QuestionFactory(origin=Origin.FILE, title="From git", source_path="questions/x/q.md")
    change_url = reverse("admin:interview_question_change", args=[question.pk])
    page = admin_client.get(change_url)
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    assert "questions/x/q.md" in page.content.decode()

    refused = admin_client.post(
        change_url, question_form(question.topic, slug=question.slug, title="Changed")
    )
    assert refused.status_code == 403
    question.refresh_from_db()
    assert question.title == "From git"
    assert (
        admin_client.post(
            reverse("admin:interview_question_delete", args=[question.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    assert Question.objects.filter(pk=question.pk).exists()


def test_topics_from_git_are_read_only_and_admin_topics_editable(admin_client):
    from_git = TopicFactory(origin=Origin.FILE)
    own = TopicFactory(origin=Origin.ADMIN)
    assert (
        'name="_save"'
        not in admin_client.get(reverse("admin:interview_topic_change", args=[from_git.pk])).content.decode()
    )
    response = admin_client.post(
        reverse("admin:interview_topic_change", args=[own.pk]),
        {
            "slug": own.slug,
            "name": "Renamed",
            "description": "",
            "position": 5,
            "retired_at_0": "",
            "retired_at_1": "",
        },
    )
    assert response.status_code == 302
    own.refresh_from_db()
    assert own.name == "Renamed"


def test_the_problem_list_shows_and_filters_by_topic_and_a_problems_topics_stay_read_only(admin_client):
    from tests.interview.factories import ProblemFactory

    attention = TopicFactory(slug="attention", name="Attention and Transformers")
    activations = TopicFactory(slug="activations", name="Activations")
    TopicFactory(slug="debugging", name="Debugging training")
    mhsa = ProblemFactory(title="Multi-head self-attention")
    mhsa.topics.set([attention, activations])
    ProblemFactory(title="Tensor-parallel MLP")

    page = admin_client.get(reverse("admin:interview_problem_changelist")).content.decode()
    assert "Attention and Transformers, Activations" in page  # in the bank's order
    assert f"topics__id__exact={activations.pk}" in page
    assert "Debugging training" not in page  # only the topics that problems name are offered

    filtered = admin_client.get(reverse("admin:interview_problem_changelist"),
                                {"topics__id__exact": activations.pk}).content.decode()
    assert "Multi-head self-attention" in filtered and "Tensor-parallel MLP" not in filtered

    change_url = reverse("admin:interview_problem_change", args=[mhsa.pk])
    assert 'name="_save"' not in admin_client.get(change_url).content.decode()
    assert admin_client.post(change_url, {"topics": [activations.pk]}).status_code == 403
    assert set(mhsa.topics.all()) == {attention, activations}


def test_the_admin_deletes_a_user_and_a_submission_that_were_judged(admin_client):
    """A finished submission points at its judgement, which goes with it: the database may see neither half
    without the other, whichever the admin deletes."""
    first, second = SubmissionFactory(), SubmissionFactory()
    response = admin_client.post(reverse("admin:auth_user_delete", args=[first.user.pk]), {"post": "yes"})
    assert response.status_code == 302
    response = admin_client.post(reverse("admin:interview_submission_delete", args=[second.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert not Submission.objects.exists() and not Judgement.objects.exists()
    assert not User.objects.filter(pk=first.user.pk).exists()
