"""The problem API and an interview's API read a submission the same way: the same bad request, the same answer."""

import json

import pytest

from interview.models import Submission
from interview.services.accounts import api_token_create
from interview.services.mock_interviews import mock_interview_start
from tests.interview.factories import ProblemFactory, UserFactory
from tests.interview.study_support import clock, make_set  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db
SOURCE = "def solve(x):\n    return x\n"


@pytest.fixture
def user():
    return UserFactory(username="ada")


@pytest.fixture
def urls(user, clock):
    """The two endpoints that take code for the same problem: the problem's own, and an interview item's.

    The clock stands still, so a wait one endpoint computes is the wait the other computes.
    """
    problem = ProblemFactory(slug="mhsa", needs="cpu")
    interview = mock_interview_start(user=user, duration_minutes=30, problem_set=make_set(problem, slug="code"))
    return {
        "problem": "/api/problems/mhsa/submissions",
        "interview": f"/api/mock-interviews/{interview.pk}/items/1/submissions",
    }


@pytest.fixture
def post(client, user):
    """POST a body (JSON-encoded unless already text) with the user's token and these headers."""
    headers = {"Authorization": f"Bearer {api_token_create(user=user, name='laptop').token}"}

    def post(url, body, **extra):
        data = body if isinstance(body, str | bytes) else json.dumps(body)
        return client.post(url, data=data, content_type="application/json", headers={**headers, **extra})

    return post


@pytest.fixture
def send(post):
    """What a client sees of the answer: the status code, the JSON, and Retry-After."""

    def send(url, body, **extra):
        response = post(url, body, **extra)
        return response.status_code, response.json(), response.get("Retry-After")

    return send


@pytest.mark.parametrize("body, headers, status, message", [
    ("{not json", {}, 400, "the body is not JSON"),
    ("[1, 2]", {}, 400, "the body must be a JSON object"),
    ("", {}, 400, "the body must be a JSON object"),
    ({"tests": "all"}, {}, 400, '"source" must be a string'),
    ({"source": 3}, {}, 400, '"source" must be a string'),
    ({"source": None}, {}, 400, '"source" must be a string'),
    ({"source": "x = '\ud800'"}, {}, 400, '"source" is not text: a lone surrogate U+D800 at character 5'),
    ({"source": SOURCE, "tests": "hidden"}, {}, 400, '"tests" must be "sample" or "all"'),
    ({"source": SOURCE, "tests": ["all"]}, {}, 400, '"tests" must be "sample" or "all"'),
    ({"source": SOURCE}, {"Idempotency-Key": "k" * 65}, 400, "the Idempotency-Key header is longer than 64 characters"),
], ids=["invalid-json", "not-an-object", "empty-body", "missing-source", "source-not-a-string", "source-null",
        "lone-surrogate", "unknown-tests", "tests-not-a-string", "key-too-long"])
def test_a_malformed_request_gets_the_same_400_from_both_apis(urls, send, body, headers, status, message):
    answers = {name: send(url, body, **headers) for name, url in urls.items()}
    assert answers["problem"] == answers["interview"]
    code, data, _ = answers["problem"]
    assert code == status and message in data["error"]
    assert not Submission.objects.exists()


def test_a_body_over_the_upload_limit_gets_413_from_both_apis(urls, send, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    body = {"source": "#" * 200}
    answers = [send(url, body) for url in urls.values()]
    assert answers == [(413, {"error": "the request body is too large"}, None)] * 2


def test_code_over_the_size_limit_gets_413_from_both_apis(urls, send, settings):
    settings.JUDGE_MAX_SOURCE_BYTES = 10
    answers = [send(url, {"source": SOURCE}) for url in urls.values()]
    assert answers[0] == answers[1]
    assert answers[0][0] == 413 and "the limit is 10" in answers[0][1]["error"]


def test_both_apis_count_against_one_rate_limit_and_say_when_to_retry(urls, send, settings, embedded_queue):
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 1
    assert send(urls["problem"], {"source": SOURCE})[0] == 201
    answers = [send(url, {"source": SOURCE + "#"}) for url in urls.values()]
    assert answers[0] == answers[1]
    code, data, retry_after = answers[0]
    assert code == 429 and "last minute" in data["error"] and int(retry_after) >= 1


def test_a_key_of_the_full_length_is_kept_whole_by_both_apis(urls, send, embedded_queue):
    for name, url in urls.items():
        key = name[0] * 64
        code, data, _ = send(url, {"source": SOURCE + f"# {name}\n"}, **{"Idempotency-Key": key})
        assert code == 201
        assert Submission.objects.get(pk=data["id"]).idempotency_key == key


def test_a_repeated_key_returns_the_same_submission_and_says_so_in_both_apis(urls, post, embedded_queue):
    for name, url in urls.items():
        headers = {"Idempotency-Key": f"click-{name}"}
        first, again = post(url, {"source": SOURCE}, **headers), post(url, {"source": SOURCE}, **headers)
        assert first.status_code == again.status_code == 201 and first.json() == again.json(), name
        assert again["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first, name
        other = post(url, {"source": "x = 1\n"}, **headers)
        assert other.status_code == 409, name
        assert other.json() == {"error": "This idempotency key was already used for a different submission."}


def test_a_draft_with_a_lone_surrogate_gets_400_from_both_apis_and_keeps_the_saved_one(client, user, urls):
    headers = {"Authorization": f"Bearer {api_token_create(user=user, name='laptop').token}"}
    for name, url in urls.items():
        draft_url = url.replace("/submissions", "/draft")
        saved = client.put(draft_url, data=json.dumps({"source": SOURCE}), content_type="application/json",
                           headers=headers)
        assert saved.status_code == 204, name
        response = client.put(draft_url, data=json.dumps({"source": "x = '\udfff'"}), content_type="application/json",
                              headers=headers)
        assert response.status_code == 400, name
        assert response.json() == {"error": '"source" is not text: a lone surrogate U+DFFF at character 5'}, name
    assert client.get(urls["problem"].replace("/submissions", "/draft"), headers=headers).json()["source"] == SOURCE
