"""Opening a failure's why: a POST from the result panel, answered in JSON or, without JavaScript, by going back
to the submission's page, where the why now shows."""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from interview.selectors.submissions import visible_submission
from interview.services.whys import WhyRefused, why_reveal


@login_required
@require_POST
def submission_why_view(request, pk: int, index: int):
    wants_json = "application/json" in request.headers.get("Accept", "")
    submission = visible_submission(user=request.user, pk=pk)
    try:
        if submission is None:
            raise WhyRefused(f"No submission #{pk} of yours.", status=404)
        test, shown = why_reveal(user=request.user, submission=submission, index=index)
    except WhyRefused as refusal:
        if wants_json:
            return JsonResponse({"error": refusal.message}, status=refusal.status)
        return HttpResponse(refusal.message, status=refusal.status, content_type="text/plain; charset=utf-8")
    if wants_json:
        return JsonResponse(why_payload(test, shown))
    return redirect(f"{submission.get_absolute_url()}#why-{index}")


def why_payload(test, shown: int) -> dict:
    return {"test": test.name, "why": test.why, "whys_shown": shown}
