"""Estimation drills: the list by topic, a drill's page (its numbers, the answer box), and a graded attempt."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from interview.estimation.units import AnswerRefused, unit_label
from interview.models import Drill, DrillAttempt
from interview.selectors.drills import drills_by_topic, open_attempt
from interview.services.drills import DrillError, drill_attempt_answer, drill_attempt_start


def drill_list_view(request):
    return render(request, "interview/drills/list.html", {"groups": drills_by_topic(user=request.user)})


def _page(request, attempt: DrillAttempt, *, typed: str = "", refusal: str = "", status: int = 200):
    drill = attempt.drill
    context = {"drill": drill, "attempt": attempt, "worked": attempt.worked(), "typed": typed, "refusal": refusal,
               "unit_label": unit_label(attempt.spec["answer_unit"]), "related": drill.related.live()}
    return render(request, "interview/drills/detail.html", context, status=status)


@login_required
def drill_detail_view(request, slug: str):
    """The drill with the user's open attempt; the first visit draws one, so reloading keeps the same numbers."""
    drill = get_object_or_404(Drill.objects.live().select_related("topic"), slug=slug)
    attempt = open_attempt(user=request.user, drill=drill) or drill_attempt_start(user=request.user, drill=drill)
    return _page(request, attempt)


@login_required
@require_POST
def drill_new_attempt_view(request, slug: str):
    drill = get_object_or_404(Drill.objects.live(), slug=slug)
    drill_attempt_start(user=request.user, drill=drill)
    return redirect(drill)


def _own_attempt(request, pk: int) -> DrillAttempt:
    return get_object_or_404(DrillAttempt.objects.select_related("drill", "drill__topic"), pk=pk, user=request.user)


@login_required
def drill_attempt_view(request, pk: int):
    return _page(request, _own_attempt(request, pk))


@login_required
@require_POST
def drill_attempt_answer_view(request, pk: int):
    attempt = _own_attempt(request, pk)
    typed = request.POST.get("answer", "")
    try:
        drill_attempt_answer(attempt=attempt, answer=typed)
    except AnswerRefused as refusal:
        # The page again with what was typed and why it cannot be graded; nothing was recorded.
        return _page(request, attempt, typed=typed[:80], refusal=str(refusal), status=400)
    except DrillError as error:
        messages.info(request, str(error))
    return redirect(attempt)
