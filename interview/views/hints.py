"""Revealing a problem's next hint: a POST from the hints panel, answered in JSON or, without JavaScript, by
going back to the problem page."""

from django.http import HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from interview.models import Problem
from interview.services.hints import HintRefused, hint_reveal, visitor_hint_reveal


@require_POST
def problem_hint_reveal_view(request, slug: str):
    problem = get_object_or_404(Problem, slug=slug)
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        hint = int(request.POST.get("hint", ""))
    except ValueError:
        return _refused(wants_json, "Say which hint to reveal: hint must be a number, such as 1.")
    try:
        if request.user.is_authenticated:
            shown = hint_reveal(user=request.user, problem=problem, hint=hint)
        else:
            shown = visitor_hint_reveal(session=request.session, problem=problem, hint=hint)
    except HintRefused as refusal:
        return _refused(wants_json, refusal.message)
    if not wants_json:
        return redirect(problem.get_absolute_url() + "#hints")
    return JsonResponse({"shown": shown, "total": len(problem.hints_html), "hints": problem.hints_html[:shown]})


def _refused(wants_json: bool, message: str):
    if wants_json:
        return JsonResponse({"error": message}, status=400)
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
