"""A refusal's reason becomes its HTTP status in one place, and every reason has one."""

import json

import pytest

from interview.services.submissions import RefusalReason, Refused
from interview.views.refusals import HTTP_STATUS, refusal_response


def test_every_reason_a_service_gives_has_an_http_status():
    assert set(HTTP_STATUS) == set(RefusalReason)


@pytest.mark.parametrize("reason, status", [
    (RefusalReason.INVALID, 400), (RefusalReason.KEY_REUSED, 409), (RefusalReason.TOO_LARGE, 413),
    (RefusalReason.RATE_LIMITED, 429), (RefusalReason.TOO_MANY_QUEUED, 429),
])
def test_a_refusal_answers_its_status_with_the_message_as_the_error(reason, status):
    response = refusal_response(Refused("Not like this.", reason=reason))
    assert response.status_code == status
    assert json.loads(response.content) == {"error": "Not like this."}
    assert "Retry-After" not in response


def test_a_refusal_that_waiting_cures_says_how_long_to_wait():
    response = refusal_response(Refused("Slow down.", reason=RefusalReason.RATE_LIMITED, retry_after=7))
    assert response["Retry-After"] == "7"
