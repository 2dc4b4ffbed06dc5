"""What a refused write answers over HTTP: the one place a refusal's reason becomes a status code."""

from django.http import JsonResponse

from interview.services.submissions import RefusalReason, Refused

HTTP_STATUS: dict[RefusalReason, int] = {
    RefusalReason.INVALID: 400,
    RefusalReason.TOO_LARGE: 413,
    RefusalReason.KEY_REUSED: 409,
    RefusalReason.RATE_LIMITED: 429,
    RefusalReason.TOO_MANY_QUEUED: 429,
}


def refusal_status(refusal: Refused) -> int:
    return HTTP_STATUS[refusal.reason]


def refusal_response(refusal: Refused) -> JsonResponse:
    """The API's answer: {"error": the message}, with Retry-After where waiting helps."""
    response = JsonResponse({"error": refusal.message}, status=refusal_status(refusal))
    if refusal.retry_after:
        response["Retry-After"] = str(refusal.retry_after)
    return response
