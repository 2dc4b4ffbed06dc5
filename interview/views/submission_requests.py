"""The JSON body and headers of a request that sends code, read one way for every API that takes one.

The problem API (interview.views.api) and an interview's API (interview.views.mock_interview_api) both read
their requests here, so the same bad request gets the same answer from either. A malformed request is
Refused with reason INVALID, a body over Django's DATA_UPLOAD_MAX_MEMORY_SIZE with TOO_LARGE; the views
answer both as they answer any refusal (interview.views.refusals).
"""

import json
from dataclasses import dataclass

from django.core.exceptions import RequestDataTooBig

from interview.models import Submission, Suite
from interview.services.submissions import RefusalReason, Refused

# The column's width: a longer key could not be stored, and cutting it could make two keys one.
IDEMPOTENCY_KEY_MAX = Submission._meta.get_field("idempotency_key").max_length


@dataclass(frozen=True)
class SubmissionRequest:
    source: str
    suite: Suite
    idempotency_key: str | None


def submission_request(request) -> SubmissionRequest:
    """{"source": str, "tests": "sample"|"all" (default all)} and an optional Idempotency-Key header."""
    data = _body(request)
    source = _source(data)
    suite = data.get("tests", Suite.ALL)
    if not isinstance(suite, str) or suite not in Suite.values:
        raise _invalid('"tests" must be "sample" or "all"')
    return SubmissionRequest(source=source, suite=Suite(suite), idempotency_key=_idempotency_key(request))


def draft_request(request) -> str:
    """The source of a draft sent as {"source": str}."""
    return _source(_body(request))


def json_object_request(request) -> dict:
    """The body of any other request that must be a JSON object, refused the same way when it is not."""
    return _body(request)


def _invalid(message: str) -> Refused:
    return Refused(message, reason=RefusalReason.INVALID)


def _body(request) -> dict:
    try:
        body = request.body
    except RequestDataTooBig:
        raise Refused("the request body is too large", reason=RefusalReason.TOO_LARGE) from None
    try:
        data = json.loads(body or b"null")
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise _invalid(f"the body is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise _invalid("the body must be a JSON object")
    return data


def _source(data: dict) -> str:
    source = data.get("source")
    if not isinstance(source, str):
        raise _invalid('"source" must be a string')
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as error:
        # JSON's \uD800 escapes can spell half a character, which no file, database column or judge can hold.
        raise _invalid(f'"source" is not text: a lone surrogate U+{ord(source[error.start]):04X} at character '
                       f'{error.start}') from None
    return source


def _idempotency_key(request) -> str | None:
    key = request.headers.get("Idempotency-Key", "").strip() or None
    if key is not None and len(key) > IDEMPOTENCY_KEY_MAX:
        raise _invalid(f"the Idempotency-Key header is longer than {IDEMPOTENCY_KEY_MAX} characters")
    return key
