"""The JSON endpoints an interview's pages use: drafts saved as typed, and code sent to the judge.

They answer like the problem API (interview.views.api), so the problem page's script (judge.js) runs
unchanged on an interview's coding item; after the end they answer 409 with the reason.
"""

from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, JsonResponse
from django.urls import reverse

from interview.models import MockInterviewItem, Suite
from interview.services.mock_interviews import (
    InterviewError, InterviewOver, mock_interview_save_draft, mock_interview_submit,
)
from interview.services.submissions import Refused
from interview.views.api import IDEMPOTENCY_KEY_MAX, _body, _refused, _source, api_endpoint, json_error


def _item(user, pk: int, position: int) -> MockInterviewItem | None:
    return (MockInterviewItem.objects.select_related("interview", "interview__user", "question", "problem")
            .filter(interview__pk=pk, interview__user=user, position=position).first())


@api_endpoint("PUT")
def mock_interview_draft_api(request, user, pk: int, position: int):
    """PUT {"source"}: the answer or code being written (204); 409 once the interview is over."""
    item = _item(user, pk, position)
    if item is None:
        return json_error("no such item in an interview of yours", 404)
    try:
        mock_interview_save_draft(item=item, draft=_source(_body(request)))
    except ValueError as error:
        return json_error(str(error), 400)
    except RequestDataTooBig:
        return json_error("the request body is too large", 413)
    except InterviewOver as over:
        return json_error(str(over), 409)
    return HttpResponse(status=204)


@api_endpoint("POST")
def mock_interview_submissions_api(request, user, pk: int, position: int):
    """POST {"source", "tests"} → 201 {"id"}: judged like any submission, and counted by the interview."""
    item = _item(user, pk, position)
    if item is None:
        return json_error("no such item in an interview of yours", 404)
    try:
        data = _body(request)
        source = _source(data)
        suite = data.get("tests", Suite.ALL)
        if suite not in Suite.values:
            raise ValueError('"tests" must be "sample" or "all"')
        key = request.headers.get("Idempotency-Key", "").strip()[:IDEMPOTENCY_KEY_MAX] or None
    except ValueError as error:
        return json_error(str(error), 400)
    except RequestDataTooBig:
        return json_error("the request body is too large", 413)
    try:
        created = mock_interview_submit(item=item, source=source, suite=suite, idempotency_key=key)
    except InterviewOver as over:
        return json_error(str(over), 409)
    except InterviewError as error:
        return json_error(str(error), 400)
    except Refused as refusal:
        return _refused(refusal)
    response = JsonResponse({"id": created.submission.pk}, status=201)
    response["Location"] = reverse("submission_api", args=[created.submission.pk])
    return response
