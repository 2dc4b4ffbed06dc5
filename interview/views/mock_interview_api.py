"""The JSON endpoints an interview's pages use: drafts saved as typed, and code sent to the judge.

They answer like the problem API (interview.views.api), so the problem page's script (judge.js) runs
unchanged on an interview's coding item; after the end they answer 409 with the reason.
"""

from django.http import HttpResponse

from interview.models import MockInterviewItem
from interview.services.mock_interviews import (
    InterviewError, InterviewOver, mock_interview_save_draft, mock_interview_submit,
)
from interview.services.submissions import Refused
from interview.views.api import api_endpoint, created_response, json_error
from interview.views.refusals import refusal_response
from interview.views.submission_requests import draft_request, submission_request


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
        mock_interview_save_draft(item=item, draft=draft_request(request))
    except Refused as refusal:
        return refusal_response(refusal)
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
        sent = submission_request(request)
        created = mock_interview_submit(item=item, source=sent.source, suite=sent.suite,
                                        idempotency_key=sent.idempotency_key)
    except Refused as refusal:
        return refusal_response(refusal)
    except InterviewOver as over:
        return json_error(str(over), 409)
    except InterviewError as error:
        return json_error(str(error), 400)
    return created_response(created)
