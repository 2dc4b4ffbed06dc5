"""Where an accepted submission stands, on its page, on the problem page and in the API."""

import re

import pytest

from interview.services.accounts import api_token_create
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def problem():
    return ProblemFactory(slug="mhsa", version="v2")


@pytest.fixture
def ada():
    return UserFactory(username="ada")


def accepted(problem, user, time_ratio, memory_ratio=1.0, **fields):
    return SubmissionFactory(problem=problem, user=user, verdict="accepted", time_user_ms=10 * (time_ratio or 1),
                             time_reference_ms=10.0, time_ratio=time_ratio, memory_user_peak_bytes=1 << 20,
                             memory_reference_peak_bytes=1 << 20, memory_ratio=memory_ratio, device="cpu", **fields)


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_an_accepted_submissions_page_shows_its_ratios_its_percentile_and_a_histogram_with_its_counts(
    client, problem, ada
):
    others = UserFactory(username="bo")
    for ratio in (0.6, 1.6, 2.5, 2.5, 3.5):
        accepted(problem, others, ratio, memory_ratio=2.0)
    mine = accepted(problem, ada, 1.1, memory_ratio=2.0)
    client.force_login(ada)
    html = client.get(mine.get_absolute_url()).content.decode()
    words = text(html)
    assert "Where it stands" in words
    assert "judged on CPU: 6 in all, this one included" in words
    assert "Time: 1.10× the reference's — faster than 80% of the 5 others." in words
    assert "Peak memory: 2.00× the reference's — less memory than 0% of the 5 others; 5 of them the same." in words
    # The histogram is an image named by its caption, and its counts are a table too.
    assert re.search(r'<svg class="histogram"[^>]*role="img" aria-labelledby="standing-time-%d"' % mine.pk, html)
    assert 'id="standing-time-%d"' % mine.pk in html
    assert "1–1.25× (this one) 1" in words and "2–3× 2" in words
    assert "<title>1 at 1–1.25×, this one among them</title>" in html


def test_the_first_accepted_submission_says_there_is_nothing_to_compare_with_yet(client, problem, ada):
    mine = accepted(problem, ada, 1.3)
    client.force_login(ada)
    words = text(client.get(mine.get_absolute_url()).content.decode())
    assert "Time: 1.30× the reference's — the only accepted submission with this figure so far" in words


def test_a_submission_without_a_time_figure_says_so(client, problem, ada):
    mine = accepted(problem, ada, None)
    client.force_login(ada)
    words = text(client.get(mine.get_absolute_url()).content.decode())
    assert "Time — not measured for this submission." in words


def test_a_submission_not_accepted_shows_no_standing(client, problem, ada):
    failed = SubmissionFactory(problem=problem, user=ada, verdict="wrong_answer", time_ratio=1.0)
    client.force_login(ada)
    assert "Where it stands" not in client.get(failed.get_absolute_url()).content.decode()


def test_the_problem_page_shows_the_users_best_with_its_percentile(client, problem, ada):
    for ratio in (0.6, 1.6, 2.5):
        accepted(problem, UserFactory(username="bo"), ratio)
    accepted(problem, ada, 2.0)
    best = accepted(problem, ada, 1.2, memory_ratio=0.9)
    client.force_login(ada)
    words = text(client.get(problem.get_absolute_url()).content.decode())
    assert (f"Your best #{best.pk} , 1.20× the reference's time and 0.90× its memory, faster than 75% of the "
            "others on CPU") in words


def test_the_problem_page_shows_no_best_before_an_accepted_submission(client, problem, ada):
    SubmissionFactory(problem=problem, user=ada, verdict="wrong_answer", time_ratio=1.0)
    client.force_login(ada)
    assert "Your best" not in client.get(problem.get_absolute_url()).content.decode()
    client.logout()
    assert "Your best" not in client.get(problem.get_absolute_url()).content.decode()


def test_the_api_gives_an_accepted_submissions_standing_and_null_for_others(client, problem, ada):
    accepted(problem, UserFactory(username="bo"), 2.0)
    mine = accepted(problem, ada, 1.0)
    failed = SubmissionFactory(problem=problem, user=ada, verdict="wrong_answer")
    bearer = {"Authorization": f"Bearer {api_token_create(user=ada, name='cli').token}"}
    assert client.get(f"/api/submissions/{mine.pk}", headers=bearer).json()["standing"] == {
        "device": "cpu", "problem_version": "v2", "counted": 2,
        "time": {"ratio": 1.0, "percent": 100, "others": 1, "beaten": 1, "tied": 0},
        "memory": {"ratio": 1.0, "percent": 0, "others": 1, "beaten": 0, "tied": 1},
    }
    assert client.get(f"/api/submissions/{failed.pk}", headers=bearer).json()["standing"] is None
