"""The hints panel on the problem page, the reveal endpoint, and the hint counts on submissions' pages."""

import pytest
from django.test import Client

from interview.models import HintReveal, MockInterview, Submission
from tests.interview.conftest import HINTS
from tests.interview.factories import SubmissionFactory, UserFactory, judged_as
from tests.interview.study_support import clock, make_set  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db

URL = "/problems/softmax/hints"


@pytest.fixture
def user():
    return UserFactory()


def reveal(client, hint, **headers):
    return client.post(URL, {"hint": hint}, HTTP_ACCEPT="application/json", **headers)


def test_the_panel_shows_none_of_the_hints_until_one_is_asked_for(client, hinted_problem):
    page = client.get("/problems/softmax/").content.decode()
    assert "Hints <span class=\"muted\" data-hints-count>(0 of 3 shown)</span>" in page
    assert "Show hint 1" in page and "Subtract the maximum" not in page


def test_a_revealed_hint_stays_revealed_for_the_user(client, hinted_problem, user):
    client.force_login(user)
    response = reveal(client, 1)
    assert response.status_code == 200
    assert response.json() == {"shown": 1, "total": 3, "hints": HINTS[:1]}
    assert reveal(client, 1).json()["shown"] == 1
    page = client.get("/problems/softmax/").content.decode()
    assert "(1 of 3 shown)" in page and "Subtract the maximum" in page and "Show hint 2" in page
    assert HintReveal.objects.get(user=user).shown == 1


def test_skipping_ahead_or_out_of_range_is_a_400_with_the_reason(client, hinted_problem, user):
    client.force_login(user)
    assert reveal(client, 2).json() == {"error": "Hint 2 follows hint 1; reveal hint 1 first."}
    assert reveal(client, 9).status_code == 400
    assert "hints 1 to 3; there is no hint 9" in reveal(client, 9).json()["error"]
    assert "must be a number" in reveal(client, "two").json()["error"]
    assert not HintReveal.objects.exists()


def test_without_javascript_the_form_reveals_and_returns_to_the_hints(client, hinted_problem, user):
    client.force_login(user)
    response = client.post(URL, {"hint": 1})
    assert response.status_code == 302 and response["Location"] == "/problems/softmax/#hints"
    refused = client.post(URL, {"hint": 3})
    assert refused.status_code == 400 and "reveal hint 2 first" in refused.content.decode()


def test_a_reveal_needs_the_csrf_token(hinted_problem, user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert reveal(client, 1).status_code == 403
    assert not HintReveal.objects.exists()


def test_a_visitor_reveals_hints_kept_in_their_session_only(client, hinted_problem):
    assert reveal(client, 1).json()["shown"] == 1
    assert reveal(client, 2).json()["shown"] == 2
    assert "(2 of 3 shown)" in client.get("/problems/softmax/").content.decode()
    assert "(0 of 3 shown)" in Client().get("/problems/softmax/").content.decode()
    assert not HintReveal.objects.exists()


def test_the_offer_appears_after_three_failures_and_goes_once_a_hint_is_revealed(client, hinted_problem, user):
    client.force_login(user)
    for _ in range(3):
        SubmissionFactory(user=user, problem=hinted_problem, verdict="wrong_answer")
    assert "Stuck? Hint 1 is there when you want it." in client.get("/problems/softmax/").content.decode()
    reveal(client, 1)
    assert "Stuck?" not in client.get("/problems/softmax/").content.decode()


def test_submissions_say_how_many_hints_were_shown(client, hinted_problem, user):
    client.force_login(user)
    with_hints = SubmissionFactory(user=user, problem=hinted_problem, hints_shown=2)
    SubmissionFactory(user=user, problem=hinted_problem, hints_shown=0)
    listing = client.get("/submissions/").content.decode()
    assert listing.count("with 2 hints") == 1 and "with 0 hint" not in listing
    assert "with 2 hints shown" in client.get(with_hints.get_absolute_url()).content.decode()


def test_hints_revealed_in_a_mock_interviews_coding_item_show_in_its_report(
    client, clock, hinted_problem, user, embedded_queue, django_capture_on_commit_callbacks
):
    client.force_login(user)
    client.post("/mock-interviews/start", {"set": make_set(hinted_problem, slug="code").slug, "duration": "30"})
    interview = MockInterview.objects.get(user=user)
    assert "(0 of 3 shown)" in client.get(f"/mock-interviews/{interview.pk}/items/1/").content.decode()
    reveal(client, 1)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/mock-interviews/{interview.pk}/items/1/submit", {"source": "x = 1\n", "tests": "all"})
    for submission in Submission.objects.all():
        judged_as(submission, verdict="wrong_answer")
    clock.advance(minutes=30)
    report = client.get(f"/mock-interviews/{interview.pk}/report/").content.decode()
    assert "tests passed · with 1 hint shown" in report
