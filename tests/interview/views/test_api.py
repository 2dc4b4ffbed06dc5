"""The JSON API's contract: authentication, status codes, the JSON shapes, and errors with an `error` field."""

import json

import pytest

from interview.models import ApiToken, ProblemDraft, Submission
from interview.services.accounts import api_token_create
from interview.services.problems import draft_save
from interview.services.submissions import submissions_rejudge
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory, judged_as

pytestmark = pytest.mark.django_db
SOURCE = "def solve(x):\n    return x\n"


@pytest.fixture
def problem():
    return ProblemFactory(slug="mhsa", needs="cpu")


@pytest.fixture
def user():
    return UserFactory(username="ada")


@pytest.fixture
def token(user):
    return api_token_create(user=user, name="laptop").token


def post(client, url, body, **headers):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(url, data=data, content_type="application/json", headers=headers)


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def test_a_token_submits_and_gets_201_with_the_id_and_its_location(client, problem, token, embedded_queue):
    response = post(client, "/api/problems/mhsa/submissions", {"source": SOURCE, "tests": "sample"}, **bearer(token))
    assert response.status_code == 201
    submission = Submission.objects.get()
    assert response.json() == {"id": submission.pk}
    assert response["Location"] == f"/api/submissions/{submission.pk}"
    assert (submission.source, submission.suite, submission.user.username) == (SOURCE, "sample", "ada")


def test_a_submission_by_token_leaves_the_editors_draft_alone(client, problem, token, user, embedded_queue):
    draft_save(user=user, problem=problem, source="# typed in the browser\n")
    post(client, "/api/problems/mhsa/submissions", {"source": SOURCE}, **bearer(token))
    assert ProblemDraft.objects.get(user=user, problem=problem).source == "# typed in the browser\n"


def test_tests_default_to_all(client, problem, token, embedded_queue):
    post(client, "/api/problems/mhsa/submissions", {"source": SOURCE}, **bearer(token))
    assert Submission.objects.get().suite == "all"


def test_a_submission_reads_back_with_the_pinned_fields(client, problem, token, user):
    submission = SubmissionFactory(user=user, problem=problem, verdict="accepted", time_user_ms=2.0,
                                   time_reference_ms=1.0, time_ratio=2.0, memory_user_peak_bytes=4096,
                                   memory_reference_peak_bytes=2048, memory_ratio=2.0, device="cpu",
                                   torch_version="2.13.0+cpu")
    submission.judgement.tests.create(index=0, name="small", status="passed", time_ms=1.25, peak_bytes=100)
    submission.judgement.tests.create(index=1, name="large", status="wrong_answer", message="differs at [0, 3]")
    response = client.get(f"/api/submissions/{submission.pk}", headers=bearer(token))
    assert response.status_code == 200
    data = response.json()
    assert {"status", "verdict", "tests", "time", "memory"} <= set(data)
    assert (data["status"], data["verdict"]) == ("finished", "accepted")
    assert data["tests"] == [
        {"name": "small", "status": "passed", "message": "", "time_ms": 1.25, "peak_bytes": 100, "has_why": False},
        {"name": "large", "status": "wrong_answer", "message": "differs at [0, 3]", "time_ms": None,
         "peak_bytes": None, "has_why": False},
    ]
    assert data["time"] == {"user_ms": 2.0, "reference_ms": 1.0, "ratio": 2.0}
    assert data["memory"] == {"user_peak_bytes": 4096, "reference_peak_bytes": 2048, "ratio": 2.0}
    assert data["progress"] == {"done": 2, "total": 3}
    assert (data["device"], data["torch_version"]) == ("cpu", "2.13.0+cpu")


def test_a_submission_reads_back_with_every_field_it_always_had_and_its_latest_judgement(
    client, problem, token, user, embedded_queue
):
    submission = SubmissionFactory(user=user, problem=problem, verdict="wrong_answer", judge_version="0ld0000000000001",
                                   problem_version="0ld")
    submissions_rejudge(submissions=Submission.objects.filter(pk=submission.pk))
    judged_as(submission, verdict="accepted", judge_version="c0ffee0000000001")
    data = client.get(f"/api/submissions/{submission.pk}", headers=bearer(token)).json()
    assert set(data) == {"id", "problem", "suite", "status", "verdict", "message", "tests", "time", "memory",
                         "progress", "queue", "attempts", "device", "device_name", "torch_version", "sandbox",
                         "problem_version", "created_at", "finished_at", "url", "judge_version", "judgements",
                         "standing"}
    assert (data["verdict"], data["judge_version"], data["problem_version"]) == (
        "accepted", "c0ffee0000000001", problem.version)
    assert data["judgements"] == 2 and data["finished_at"] is not None


def test_a_queued_submission_says_its_place_in_the_queue_and_that_no_worker_runs(client, problem, token, user):
    SubmissionFactory(problem=problem, status="queued", verdict="")
    mine = SubmissionFactory(user=user, problem=problem, status="queued", verdict="")
    data = client.get(f"/api/submissions/{mine.pk}", headers=bearer(token)).json()
    assert (data["status"], data["verdict"]) == ("queued", None)
    assert data["queue"] == {"name": "cpu", "position": 2, "workers": 0}
    assert data["tests"] == [] and data["time"] == {"user_ms": None, "reference_ms": None, "ratio": None}
    # The version it will be judged against, until a judgement says which judged it.
    assert (data["problem_version"], data["judge_version"], data["judgements"]) == (problem.version, None, 0)


def test_someone_elses_submission_is_not_found(client, problem, token):
    other = SubmissionFactory(problem=problem)
    response = client.get(f"/api/submissions/{other.pk}", headers=bearer(token))
    assert response.status_code == 404
    assert "error" in response.json()


def test_without_credentials_the_api_answers_401_in_json(client, problem):
    response = post(client, "/api/problems/mhsa/submissions", {"source": SOURCE})
    assert response.status_code == 401
    assert response.json()["error"].startswith("authentication required")
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("header", ["Bearer itk_not-a-token", "Bearer ", "Basic YWRhOnNlY3JldA==", "itk_x"])
def test_a_bad_or_revoked_token_answers_401(client, problem, header):
    response = post(client, "/api/problems/mhsa/submissions", {"source": SOURCE}, Authorization=header)
    assert response.status_code == 401
    assert response.json() == {"error": "invalid or revoked API token"}


def test_a_revoked_token_stops_working(client, problem, token):
    ApiToken.objects.all().delete()
    assert client.get("/api/problems/mhsa/submissions", headers=bearer(token)).status_code == 401


def test_using_a_token_records_when(client, problem, token):
    client.get("/api/problems/mhsa/submissions", headers=bearer(token))
    assert ApiToken.objects.get().last_used_at is not None


def test_the_session_works_with_the_csrf_token_and_is_refused_without_it(problem, user, embedded_queue):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    refused = post(browser, "/api/problems/mhsa/submissions", {"source": SOURCE})
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["error"]
    browser.get("/problems/mhsa/")  # sets the csrftoken cookie
    accepted = post(browser, "/api/problems/mhsa/submissions", {"source": SOURCE},
                    **{"X-CSRFToken": browser.cookies["csrftoken"].value})
    assert accepted.status_code == 201


@pytest.mark.parametrize("body, message", [
    ("{not json", "not JSON"),
    ("[1, 2]", "JSON object"),
    ({"tests": "all"}, '"source" must be a string'),
    ({"source": 3}, '"source" must be a string'),
    ({"source": SOURCE, "tests": "hidden"}, '"tests" must be "sample" or "all"'),
])
def test_a_malformed_request_answers_400_saying_what_is_wrong(client, problem, token, body, message):
    response = post(client, "/api/problems/mhsa/submissions", body, **bearer(token))
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_an_unknown_or_retired_problem_answers_404(client, problem, token):
    assert post(client, "/api/problems/nope/submissions", {"source": SOURCE}, **bearer(token)).status_code == 404
    ProblemFactory(slug="old", retired_at="2026-01-01T00:00:00Z")
    assert post(client, "/api/problems/old/submissions", {"source": SOURCE}, **bearer(token)).status_code == 404


def test_a_method_the_endpoint_does_not_take_answers_405(client, problem, token):
    response = client.delete("/api/problems/mhsa/submissions", headers=bearer(token))
    assert response.status_code == 405
    assert response["Allow"] == "GET, POST"


def test_code_over_the_size_limit_answers_413(client, problem, token, settings):
    settings.JUDGE_MAX_SOURCE_BYTES = 10
    response = post(client, "/api/problems/mhsa/submissions", {"source": SOURCE}, **bearer(token))
    assert response.status_code == 413
    assert "the limit is 10" in response.json()["error"]


def test_too_many_submissions_answer_429_with_retry_after(client, problem, token, settings, embedded_queue):
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 1
    assert post(client, "/api/problems/mhsa/submissions", {"source": SOURCE}, **bearer(token)).status_code == 201
    response = post(client, "/api/problems/mhsa/submissions", {"source": SOURCE + "#"}, **bearer(token))
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    assert "last minute" in response.json()["error"]


def test_a_repeated_idempotency_key_returns_the_same_id(client, problem, token, embedded_queue):
    first = post(client, "/api/problems/mhsa/submissions", {"source": SOURCE}, **bearer(token), **{"Idempotency-Key": "k1"})
    again = post(client, "/api/problems/mhsa/submissions", {"source": SOURCE}, **bearer(token), **{"Idempotency-Key": "k1"})
    assert first.json() == again.json() and again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    other = post(client, "/api/problems/mhsa/submissions", {"source": "x = 1\n"}, **bearer(token),
                 **{"Idempotency-Key": "k1"})
    assert other.status_code == 409


def test_the_history_lists_the_users_submissions_to_the_problem(client, problem, token, user):
    mine = SubmissionFactory(user=user, problem=problem)
    SubmissionFactory(problem=problem)
    data = client.get("/api/problems/mhsa/submissions", headers=bearer(token)).json()
    assert [row["id"] for row in data["submissions"]] == [mine.pk]
    assert set(data["submissions"][0]) == {"id", "problem", "tests", "status", "verdict", "created_at", "url"}


def test_the_draft_is_saved_and_read_back(client, problem, token):
    assert client.get("/api/problems/mhsa/draft", headers=bearer(token)).json()["source"] == problem.starter_code
    response = client.put("/api/problems/mhsa/draft", data=json.dumps({"source": "draft = 1\n"}),
                          content_type="application/json", headers=bearer(token))
    assert response.status_code == 204 and response.content == b""
    data = client.get("/api/problems/mhsa/draft", headers=bearer(token)).json()
    assert data["source"] == "draft = 1\n" and data["saved_at"]


def test_a_draft_over_the_size_limit_answers_413(client, problem, token, settings):
    settings.JUDGE_MAX_SOURCE_BYTES = 4
    response = client.put("/api/problems/mhsa/draft", data=json.dumps({"source": "draft = 1\n"}),
                          content_type="application/json", headers=bearer(token))
    assert response.status_code == 413


def test_me_names_the_tokens_user_and_refuses_a_wrong_token(client, token):
    assert client.get("/api/me", headers=bearer(token)).json() == {"username": "ada"}
    response = client.get("/api/me", headers=bearer("itk_wrong"))
    assert response.status_code == 401 and response.json()["error"] == "invalid or revoked API token"


def test_a_problem_reads_as_its_statement_starter_and_limits(client, problem, token):
    body = client.get("/api/problems/mhsa", headers=bearer(token)).json()
    assert body == {
        "slug": "mhsa", "title": problem.title, "difficulty": "medium", "needs": "cpu",
        "statement": "Write it.", "starter": problem.starter_code, "version": problem.version,
        "sample_tests": ["small"], "hidden_tests": 2, "limits": problem.limits, "url": "/problems/mhsa/",
    }


def test_an_unknown_or_retired_problem_is_a_404_naming_it(client, problem, token):
    ProblemFactory(slug="gone", retired_at="2026-01-01T00:00:00Z")
    for slug in ("nothing", "gone"):
        response = client.get(f"/api/problems/{slug}", headers=bearer(token))
        assert response.status_code == 404 and response.json() == {"error": f"no problem {slug!r}"}
    assert client.post("/api/problems/mhsa", headers=bearer(token)).status_code == 405


def test_a_draft_carried_from_before_logging_in_is_judged_newer_by_its_age(client, problem, token, user):
    draft_save(user=user, problem=problem, source="account = 1\n")
    older = post(client, "/api/problems/mhsa/draft/carry", {"source": "browser = 1\n", "age_ms": 60_000},
                 **bearer(token)).json()
    assert older["source"] == "account = 1\n"
    assert older["other"]["source"] == "browser = 1\n" and older["other"]["origin"] == "browser"
    assert older["other"]["description"] == "typed in this browser before you logged in, saved 1\xa0minute ago"
    assert client.get("/api/problems/mhsa/draft", headers=bearer(token)).json() == older
    picked = post(client, "/api/problems/mhsa/draft/pick", {"keep": "other"}, **bearer(token)).json()
    assert (picked["source"], picked["other"]) == ("browser = 1\n", None)


@pytest.mark.parametrize(("url", "body", "error"), [
    ("/api/problems/mhsa/draft/carry", {"source": "x = 1\n", "age_ms": -1}, '"age_ms" must be'),
    ("/api/problems/mhsa/draft/carry", {"source": "x = 1\n", "age_ms": "5"}, '"age_ms" must be'),
    ("/api/problems/mhsa/draft/carry", {"age_ms": 5}, '"source" must be a string'),
    ("/api/problems/mhsa/draft/pick", {"keep": "both"}, '"keep" must be "editor" or "other"'),
])
def test_a_malformed_carry_or_pick_is_refused_with_400(client, problem, token, url, body, error):
    response = post(client, url, body, **bearer(token))
    assert response.status_code == 400 and response.json()["error"].startswith(error)


def test_a_draft_carried_for_an_unknown_problem_answers_404(client, token):
    response = post(client, "/api/problems/nope/draft/carry", {"source": "x\n", "age_ms": 0}, **bearer(token))
    assert response.status_code == 404
