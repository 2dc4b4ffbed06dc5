"""Practice: the dashboard, starting a session, and a session's items (answer, reveal, tick, rate).

The forms carry the browser's time zone (practice.js fills a hidden field), which the user's days and streak
are counted in.
"""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from interview.estimation.units import AnswerRefused, unit_label
from interview.models import ItemState, PracticeItem, PracticeSession, ProblemSet, Rating, Topic
from interview.rendering import render_user_markdown
from interview.selectors.drills import due_drill_cards
from interview.selectors.practice import (
    due_cards, recent_sessions, session_view, solved_problems, topic_progress, upcoming_count,
)
from interview.selectors.problem_sets import published_sets
from interview.selectors.study_days import study_streak
from interview.services.practice import (
    PracticeError, practice_estimate, practice_rate, practice_reveal, practice_session_finish, practice_session_start,
    practice_skip, study_profile_set_timezone,
)

DUE_LIST_LENGTH = 12


def _remember_timezone(request) -> None:
    name = request.POST.get("timezone", "")
    if name:
        study_profile_set_timezone(user=request.user, timezone_name=name[:64])


@login_required
def practice_view(request):
    due = due_cards(user=request.user)
    due_drills = due_drill_cards(user=request.user)
    progress = topic_progress(user=request.user)
    context = {
        "due": list(due[:DUE_LIST_LENGTH]),
        "due_count": due.count(),
        "due_drills": list(due_drills[:DUE_LIST_LENGTH]),
        "due_drill_count": due_drills.count(),
        "upcoming_count": upcoming_count(user=request.user),
        "progress": progress,
        "streak": study_streak(user=request.user),
        "solved": solved_problems(user=request.user),
        "sets": published_sets(),
        "topics": [row.topic for row in progress],
        "recent": recent_sessions(user=request.user),
        "now": timezone.now(),
    }
    return render(request, "interview/practice/dashboard.html", context)


@login_required
@require_POST
def practice_start_view(request):
    """Start a session on a topic (`topic`), a published set (`set`), or with neither, what is due."""
    _remember_timezone(request)
    topic = get_object_or_404(Topic.objects.live(), slug=request.POST["topic"]) if request.POST.get("topic") else None
    problem_set = (get_object_or_404(ProblemSet.objects.published(), slug=request.POST["set"])
                   if request.POST.get("set") else None)
    try:
        session = practice_session_start(user=request.user, topic=topic, problem_set=problem_set)
    except PracticeError as error:
        messages.info(request, str(error))
        return redirect("practice")
    return redirect(session)


@login_required
def practice_session_view(request, pk: int):
    session = get_object_or_404(PracticeSession.objects.select_related("topic", "problem_set"),
                                pk=pk, user=request.user)
    position = request.GET.get("item", "")
    view = session_view(session=session, position=int(position) if position.isdigit() else None)
    current = view.current
    context = {"view": view, "session": session, "current": current, "ratings": Rating.choices,
               "typed": request.GET.get("typed", "")[:80]}
    if current is not None and current.drill_id:
        context["worked"] = current.drill_attempt.worked()
        context["unit_label"] = unit_label(current.drill_attempt.spec["answer_unit"])
    if current is not None and current.question_id and current.state != ItemState.PENDING:
        context["answer_html"] = render_user_markdown(current.answer) if current.answer else ""
        context["key_points"] = [{"index": index, "text": point["text"], "matched": index in current.matched}
                                 for index, point in enumerate(current.question.key_points)]
        context["suggested"] = _suggested_rating(len(current.matched), len(current.question.key_points))
    return render(request, "interview/practice/session.html", context)


def _suggested_rating(covered: int, total: int) -> int:
    """A starting point for the rating from the matcher's coverage; the user decides."""
    share = covered / total if total else 0
    return Rating.GOOD if share >= 0.75 else Rating.HARD if share >= 0.4 else Rating.AGAIN


def _own_item(request, pk: int) -> PracticeItem:
    return get_object_or_404(PracticeItem.objects.select_related("session", "session__user", "question",
                                                                 "drill_attempt"),
                             pk=pk, session__user=request.user)


def _back_to(item: PracticeItem, *, same_item: bool = False):
    url = item.session.get_absolute_url()
    return redirect(f"{url}?item={item.position}" if same_item else url)


@login_required
@require_POST
def practice_reveal_view(request, pk: int):
    item = _own_item(request, pk)
    try:
        practice_reveal(item=item, answer=request.POST.get("answer", ""))
    except PracticeError as error:
        messages.info(request, str(error))
    return _back_to(item, same_item=True)


@login_required
@require_POST
def practice_rate_view(request, pk: int):
    _remember_timezone(request)
    item = _own_item(request, pk)
    try:
        rating = Rating(int(request.POST.get("rating", "")))
    except ValueError:
        messages.error(request, "Choose how well you recalled it: Again, Hard, Good or Easy.")
        return _back_to(item, same_item=True)
    covered = [int(value) for value in request.POST.getlist("covered") if value.isdigit()]
    try:
        review = practice_rate(item=item, rating=rating, covered=covered)
    except PracticeError as error:
        messages.info(request, str(error))
    else:
        messages.success(request, f"{item.question.title}: rated {rating.label}; it comes back "
                                  f"{_when(review.due_after, review.reviewed_at)}.")
    return _back_to(item)


def _when(due, now) -> str:
    seconds = (due - now).total_seconds()
    if seconds < 3600:
        return f"in {max(1, round(seconds / 60))} minutes"
    if seconds < 86400:
        return f"in {round(seconds / 3600)} hours"
    days = round(seconds / 86400)
    return f"in {days} day{'s' if days != 1 else ''}"


@login_required
@require_POST
def practice_estimate_view(request, pk: int):
    item = _own_item(request, pk)
    typed = request.POST.get("answer", "")
    try:
        practice_estimate(item=item, answer=typed)
    except AnswerRefused as refusal:
        messages.error(request, str(refusal))
        return redirect(f"{item.session.get_absolute_url()}?{urlencode({'item': item.position, 'typed': typed[:80]})}")
    except PracticeError as error:
        messages.info(request, str(error))
    return _back_to(item, same_item=True)


@login_required
@require_POST
def practice_skip_view(request, pk: int):
    item = _own_item(request, pk)
    try:
        practice_skip(item=item)
    except PracticeError as error:
        messages.info(request, str(error))
    return _back_to(item)


@login_required
@require_POST
def practice_finish_view(request, pk: int):
    session = get_object_or_404(PracticeSession, pk=pk, user=request.user)
    practice_session_finish(session=session)
    return redirect(session)
