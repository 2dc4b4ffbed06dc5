"""The JSON API: submissions and drafts, for the site's own pages and for one's own editor or scripts.

The site's pages authenticate with the session (unsafe methods must carry the CSRF token); scripts send
`Authorization: Bearer <token>` (tokens come from the profile page or `manage.py create_api_token`) and need
no CSRF token, since no browser adds that header by itself. Every error is JSON with an `error` field.
"""

from datetime import timedelta
from functools import wraps

from django.http import HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from interview.models import Judgement, Problem, ProblemDraft, Submission
from interview.selectors.results import judged_tests
from interview.selectors.standing import Placing, standing
from interview.selectors.submissions import judgement_count, queue_position, user_submissions, visible_submission
from interview.selectors.workers import consuming
from interview.services.accounts import api_token_user
from interview.services.problems import Pick, draft_carry, draft_pick, draft_save
from interview.services.submissions import Created, RefusalReason, Refused, submission_create
from interview.services.whys import WhyRefused, why_reveal
from interview.views.refusals import refusal_response
from interview.views.submission_requests import draft_request, json_object_request, submission_request
from interview.views.whys import why_payload

HISTORY_LIMIT = 50
# A year: older than any draft a browser keeps; a larger age could overflow the date it gives.
MAX_DRAFT_AGE_MS = 365 * 24 * 3600 * 1000


def json_error(message: str, status: int, **headers: str) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def _authenticate(request):
    """(user, None) for a valid token or session, else (None, the error response)."""
    header = request.headers.get("Authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        user = api_token_user(token=token.strip()) if scheme.lower() == "bearer" and token.strip() else None
        if user is None:
            return None, json_error("invalid or revoked API token", 401,
                                    WWW_Authenticate='Bearer error="invalid_token"')
        return user, None
    if not request.user.is_authenticated:
        return None, json_error("authentication required: log in, or send Authorization: Bearer <token>", 401,
                                WWW_Authenticate="Bearer")
    rejected = CsrfViewMiddleware(lambda request: None).process_view(request, None, (), {})
    if rejected is not None:
        return None, json_error("CSRF check failed: send the X-CSRFToken header with the csrftoken cookie's value",
                                403)
    return request.user, None


def api_endpoint(*methods: str):
    """JSON in and out, the given methods only, and a user authenticated by token or session."""

    def decorate(view):
        @csrf_exempt  # checked in _authenticate, for session users only
        @never_cache
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if request.method not in methods:
                return json_error(f"{request.method} is not allowed here", 405, Allow=", ".join(methods))
            user, failure = _authenticate(request)
            if failure is not None:
                return failure
            return view(request, user, *args, **kwargs)

        return wrapper

    return decorate


def _problem(slug: str) -> Problem | None:
    return Problem.objects.live().filter(slug=slug).first()


def created_response(created: Created) -> JsonResponse:
    """201 {"id"} with the submission's API URL, and whether an earlier request with the key made it."""
    response = JsonResponse({"id": created.submission.pk}, status=201)
    response["Location"] = reverse("submission_api", args=[created.submission.pk])
    if created.replayed:
        response["Idempotent-Replayed"] = "true"
    return response


@api_endpoint("GET")
def me_api(request, user):
    """Who the credentials belong to: the command-line client checks a token with it before keeping it."""
    return JsonResponse({"username": user.get_username()})


@api_endpoint("GET")
def problem_api(request, user, slug: str):
    """A live problem as its page shows it: the statement (Markdown), the starter code, the limits."""
    problem = _problem(slug)
    if problem is None:
        return json_error(f"no problem {slug!r}", 404)
    return JsonResponse({
        "slug": problem.slug, "title": problem.title, "difficulty": problem.difficulty, "needs": problem.needs,
        "statement": problem.statement_markdown, "starter": problem.starter_code, "version": problem.version,
        "sample_tests": problem.sample_test_names, "hidden_tests": problem.hidden_test_count,
        "limits": problem.limits, "url": problem.get_absolute_url(),
    })


@api_endpoint("GET", "POST")
def problem_submissions_api(request, user, slug: str):
    """POST {"source", "tests": "sample"|"all"} → 201 {"id"}; GET → the user's submissions to the problem."""
    problem = _problem(slug)
    if problem is None:
        return json_error(f"no problem {slug!r}", 404)
    if request.method == "GET":
        submissions = user_submissions(user=user, problem=problem)[:HISTORY_LIMIT]
        return JsonResponse({"submissions": [_summary(submission) for submission in submissions]})
    try:
        sent = submission_request(request)
        created = submission_create(user=user, problem=problem, source=sent.source, suite=sent.suite,
                                    idempotency_key=sent.idempotency_key)
    except Refused as refusal:
        return refusal_response(refusal)
    return created_response(created)


@api_endpoint("GET")
def submission_api(request, user, pk: int):
    """The submission's state, verdict and tests so far (the page polls it while it is judged)."""
    submission = visible_submission(user=user, pk=pk)
    if submission is None:
        return json_error(f"no submission {pk} of yours", 404)
    return JsonResponse(submission_payload(submission))


@api_endpoint("POST")
def submission_why_api(request, user, pk: int, index: int):
    """POST opens the why of test `index` (from 0) of a submission of the user's: {"test", "why", "whys_shown"}.
    Each why opened counts as a hint on the problem."""
    submission = visible_submission(user=user, pk=pk)
    if submission is None:
        return json_error(f"no submission {pk} of yours", 404)
    try:
        test, shown = why_reveal(user=user, submission=submission, index=index)
    except WhyRefused as refusal:
        return json_error(refusal.message, refusal.status)
    return JsonResponse(why_payload(test, shown))


@api_endpoint("GET", "PUT")
def problem_draft_api(request, user, slug: str):
    """PUT {"source"} saves the user's draft of the problem (204); GET returns it."""
    problem = _problem(slug)
    if problem is None:
        return json_error(f"no problem {slug!r}", 404)
    if request.method == "GET":
        return JsonResponse(draft_payload(problem.drafts.filter(user=user).first(), problem))
    try:
        draft_save(user=user, problem=problem, source=draft_request(request))
    except Refused as refusal:
        return refusal_response(refusal)
    return HttpResponse(status=204)


@api_endpoint("POST")
def problem_draft_carry_api(request, user, slug: str):
    """POST {"source", "age_ms"}: code typed in this browser before logging in, age_ms ago, joins the account's
    draft (interview.services.problems.draft_carry); answers the draft as GET .../draft does."""
    problem = _problem(slug)
    if problem is None:
        return json_error(f"no problem {slug!r}", 404)
    try:
        source = draft_request(request)
        age_ms = json_object_request(request).get("age_ms")
        if not isinstance(age_ms, int) or age_ms < 0:
            raise Refused('"age_ms" must be a whole number of milliseconds, 0 or more', reason=RefusalReason.INVALID)
        # An age, not a time: the browser's clock may be wrong, its count of elapsed time is not.
        saved_at = timezone.now() - timedelta(milliseconds=min(age_ms, MAX_DRAFT_AGE_MS))
        draft = draft_carry(user=user, problem=problem, source=source, saved_at=saved_at)
    except Refused as refusal:
        return refusal_response(refusal)
    return JsonResponse(draft_payload(draft, problem))


@api_endpoint("POST")
def problem_draft_pick_api(request, user, slug: str):
    """POST {"keep": "editor"|"other"}: of two versions of a draft, keep one and drop the other."""
    problem = _problem(slug)
    if problem is None:
        return json_error(f"no problem {slug!r}", 404)
    try:
        keep = json_object_request(request).get("keep")
        if keep not in {pick.value for pick in Pick}:
            raise Refused('"keep" must be "editor" or "other"', reason=RefusalReason.INVALID)
        draft = draft_pick(user=user, problem=problem, keep=Pick(keep))
    except Refused as refusal:
        return refusal_response(refusal)
    return JsonResponse(draft_payload(draft, problem))


def draft_payload(draft: ProblemDraft | None, problem: Problem) -> dict:
    """The draft's code and, while there are two versions, the other one and what it is."""
    if draft is None:
        return {"source": problem.starter_code, "saved_at": None, "other": None}
    other = None
    if draft.has_other_version:
        other = {"source": draft.other_source, "origin": draft.other_origin,
                 "saved_at": draft.other_saved_at.isoformat(), "description": draft.other_version_description()}
    return {"source": draft.source, "saved_at": draft.updated_at.isoformat(), "other": other}


def _summary(submission: Submission) -> dict:
    judgement = submission.judgement
    return {
        "id": submission.pk, "problem": submission.problem.slug, "tests": submission.suite,
        "status": submission.status, "verdict": (judgement.verdict if judgement else "") or None,
        "created_at": submission.created_at.isoformat(), "url": submission.get_absolute_url(),
    }


def submission_payload(submission: Submission) -> dict:
    """The JSON form of a submission and its latest judgement: the pinned fields (status, verdict, tests, time,
    memory) and more. While it is queued there is no judgement, and its figures are null."""
    results = judged_tests(submission)
    judgement = submission.judgement or Judgement()
    return {
        "id": submission.pk,
        "problem": submission.problem.slug,
        "suite": submission.suite,
        "status": submission.status,
        "verdict": judgement.verdict or None,
        "message": submission.message,
        # A test's why is the rule or the fix behind its failure: only whether it has one, until it is opened
        # (POST .../tests/<index>/why), which counts as a hint.
        "tests": [{"name": result.name, "status": result.status, "message": result.message,
                   "time_ms": result.time_ms, "peak_bytes": result.peak_bytes, "has_why": bool(result.why)}
                  for result in results],
        "time": {"user_ms": judgement.time_user_ms, "reference_ms": judgement.time_reference_ms,
                 "ratio": judgement.time_ratio},
        "memory": {"user_peak_bytes": judgement.memory_user_peak_bytes,
                   "reference_peak_bytes": judgement.memory_reference_peak_bytes, "ratio": judgement.memory_ratio},
        "progress": {"done": len(results), "total": submission.tests_total},
        "queue": {"name": submission.queue, "position": queue_position(submission),
                  "workers": len(consuming(submission.queue)) if submission.is_active else None},
        "attempts": submission.attempts,
        "device": judgement.device or None,
        "device_name": judgement.device_name or None,
        "torch_version": judgement.torch_version or None,
        "sandbox": judgement.sandbox or None,
        # Until a judgement says which version judged it, the one it will be judged against.
        "problem_version": judgement.problem_version or submission.problem.version,
        "judge_version": judgement.judge_version or None,
        "judgements": judgement_count(submission),
        "created_at": submission.created_at.isoformat(),
        "finished_at": judgement.finished_at.isoformat() if judgement.finished_at else None,
        "url": submission.get_absolute_url(),
        "standing": _standing_payload(submission),
    }


def _standing_payload(submission: Submission) -> dict | None:
    """Where an accepted submission of all tests stands (interview.selectors.standing); null for any other."""
    found = standing(submission)
    if found is None:
        return None

    def placing(figure: Placing) -> dict:
        return {"ratio": figure.ratio, "percent": figure.percent, "others": figure.others, "beaten": figure.beaten,
                "tied": figure.tied}

    return {"device": found.device, "problem_version": found.problem_version, "counted": found.counted,
            "time": placing(found.time), "memory": placing(found.memory)}
