"""A failure's why: behind a button on the result, opened by its author only, kept open, counted as a hint."""

import pytest

from interview.models import WhyReveal
from interview.services.accounts import api_token_create
from interview.services.submissions import submission_create
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory

pytestmark = pytest.mark.django_db
RULE = "With label smoothing the gradient is softmax - ((1 - ε)·one_hot + ε/C)."
SAID = "logits.grad: 132 of 176 values differ. This is exactly what a hand-written backward gives."


@pytest.fixture
def user():
    return UserFactory()


def failed(user, problem=None, why=RULE):
    submission = SubmissionFactory(user=user, problem=problem or ProblemFactory(slug="cross-entropy"),
                                   verdict="wrong_answer", tests_total=3)
    submission.judgement.tests.create(index=0, name="small", status="passed")
    submission.judgement.tests.create(index=1, name="smoothing", status="wrong_answer", message=SAID, why=why)
    submission.judgement.tests.create(index=2, name="hidden-smoothing", status="wrong_answer", message=SAID, why=why)
    return submission


def page(client, submission) -> str:
    response = client.get(f"/submissions/{submission.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_why_is_behind_a_button_that_says_it_counts_as_a_hint(client, user):
    submission = failed(user)
    client.force_login(user)
    html = page(client, submission)
    assert SAID in html and "ε/C" not in html
    assert f'action="/submissions/{submission.pk}/tests/1/why"' in html
    assert "Opening it counts as a hint." in html and 'aria-describedby="why-note-1"' in html


def test_opening_it_without_javascript_goes_back_to_the_result_with_the_why_shown(client, user):
    submission = failed(user)
    client.force_login(user)
    response = client.post(f"/submissions/{submission.pk}/tests/1/why")
    assert response.status_code == 302 and response["Location"] == f"/submissions/{submission.pk}/#why-1"
    html = page(client, submission)
    assert "<strong>Why:</strong> With label smoothing" in html and "data-why-form" not in html


def test_opening_it_in_json_answers_the_words_and_the_count_once_however_often_asked(client, user):
    submission = failed(user)
    client.force_login(user)
    for _ in range(2):
        response = client.post(f"/submissions/{submission.pk}/tests/2/why", HTTP_ACCEPT="application/json")
        assert response.json() == {"test": "hidden-smoothing", "why": RULE, "whys_shown": 1}
    assert WhyReveal.objects.count() == 1


def test_the_same_why_in_a_later_submission_shows_open_and_is_not_counted_again(client, user):
    first = failed(user)
    client.force_login(user)
    client.post(f"/submissions/{first.pk}/tests/1/why")
    later = failed(user, problem=first.problem)
    assert "<strong>Why:</strong>" in page(client, later)
    response = client.post(f"/submissions/{later.pk}/tests/1/why", HTTP_ACCEPT="application/json")
    assert response.json()["whys_shown"] == 1


def test_the_next_submission_records_the_whys_opened_and_the_pages_say_so(client, user):
    submission = failed(user)
    client.force_login(user)
    client.post(f"/submissions/{submission.pk}/tests/1/why")
    created = submission_create(user=user, problem=submission.problem, source="def f():\n    pass\n", suite="all")
    assert created.submission.whys_shown == 1 and created.submission.hints_shown == 0
    assert "with 1 why shown" in page(client, created.submission)
    assert "with 1 why</span>" in client.get("/submissions/").content.decode()


@pytest.mark.parametrize("index, status", [(0, 400), (7, 404)])
def test_a_test_without_a_why_is_refused_with_a_reason(client, user, index, status):
    submission = failed(user)
    client.force_login(user)
    response = client.post(f"/submissions/{submission.pk}/tests/{index}/why", HTTP_ACCEPT="application/json")
    assert response.status_code == status and response.json()["error"]
    assert WhyReveal.objects.count() == 0


def test_only_the_author_opens_a_why_and_staff_see_what_the_author_opened(client, user):
    submission = failed(user)
    staff = UserFactory(is_staff=True)
    client.force_login(staff)
    assert "data-why-form" not in page(client, submission)
    response = client.post(f"/submissions/{submission.pk}/tests/1/why", HTTP_ACCEPT="application/json")
    assert response.status_code == 403 and WhyReveal.objects.count() == 0
    client.force_login(UserFactory())
    assert client.post(f"/submissions/{submission.pk}/tests/1/why").status_code == 404


def test_the_api_says_which_tests_have_a_why_and_opens_one_with_a_token(client, user):
    submission = failed(user)
    client.force_login(user)
    tests = client.get(f"/api/submissions/{submission.pk}").json()["tests"]
    assert [test["has_why"] for test in tests] == [False, True, True]
    assert all("why" not in test for test in tests)
    token = api_token_create(user=user, name="cli").token
    client.logout()
    opened = client.post(f"/api/submissions/{submission.pk}/tests/1/why", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert opened.status_code == 200 and opened.json()["why"] == RULE
