"""Mock interviews: start one, work through its items on the server's clock, finish, read the report.

The page's countdown (mock_interview.js) only displays `ends_at`; the services refuse what arrives after it.
Coding items reuse the problem page's editor and live results (judge.js) against the interview's own
submission and draft endpoints (interview.views.mock_interview_api); without JavaScript their form posts
here and lands on the submission's page.
"""

import uuid
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from interview.estimation.units import AnswerRefused, unit_label
from interview.models import Level, MockInterview, MockInterviewItem, ProblemSet, Suite
from interview.models.mock_interviews import DURATIONS
from interview.rendering import render_user_markdown
from interview.selectors.mock_interviews import (
    PARTIAL_CREDIT, PROBLEM_WEIGHT, follow_up_wait, interview_report, item_submissions, past_interviews,
    running_interview,
)
from interview.selectors.problem_sets import published_sets_with_follow_ups
from interview.selectors.rubric import interview_rubric
from interview.services.mock_interviews import (
    InterviewError, InterviewOver, mock_interview_answer, mock_interview_correct, mock_interview_estimate,
    mock_interview_finish, mock_interview_open, mock_interview_start, mock_interview_submit,
)
from interview.services.submissions import Refused
from interview.views.problems import EDITOR_SCRIPT, EDITOR_STYLESHEET
from interview.views.submission_requests import IDEMPOTENCY_KEY_MAX


# The duration field's value for "as long as the set's own time budget", and the minutes of a set without one.
SET_BUDGET = "budget"
DEFAULT_SET_MINUTES = 60


@login_required
def mock_interview_list_view(request):
    context = {
        "running": running_interview(user=request.user),
        "interviews": past_interviews(user=request.user),
        "sets": published_sets_with_follow_ups(),
        "levels": Level.choices,
        "durations": DURATIONS,
        "chosen_set": request.GET.get("set", ""),
        "SET_BUDGET": SET_BUDGET,
        "default_set_minutes": DEFAULT_SET_MINUTES,
    }
    return render(request, "interview/mock_interviews/list.html", context)


@login_required
@require_POST
def mock_interview_start_view(request):
    slug = request.POST.get("set", "")
    problem_set = get_object_or_404(ProblemSet.objects.published(), slug=slug) if slug else None
    try:
        duration = request.POST.get("duration", "")
        if duration == SET_BUDGET and problem_set is not None:
            minutes = problem_set.time_budget_minutes or DEFAULT_SET_MINUTES
        else:
            minutes = int(duration)
        interview = mock_interview_start(user=request.user, duration_minutes=minutes, problem_set=problem_set,
                                         level=request.POST.get("level", ""))
    except (ValueError, InterviewError) as error:
        messages.error(request, str(error) if isinstance(error, InterviewError) else "Pick a duration.")
        return redirect("mock_interview_list")
    return redirect(interview.items.first())


def _own_interview(request, pk: int) -> MockInterview:
    return get_object_or_404(MockInterview.objects.select_related("problem_set"), pk=pk, user=request.user)


def _own_item(request, pk: int, position: int) -> MockInterviewItem:
    return get_object_or_404(
        MockInterviewItem.objects.select_related("interview", "interview__problem_set", "question",
                                                 "question__topic", "problem", "drill", "drill__topic",
                                                 "drill_attempt", "follows__problem"),
        interview__pk=pk, interview__user=request.user, position=position,
    )


@login_required
def mock_interview_detail_view(request, pk: int):
    """Where the interview stands: its report once it is over, else its first item."""
    interview = _own_interview(request, pk)
    if interview.is_over(timezone.now()):
        return redirect("mock_interview_report", pk=interview.pk)
    return redirect(interview.items.first())


@login_required
def mock_interview_item_view(request, pk: int, position: int):
    item = _own_item(request, pk, position)
    interview = item.interview
    now = timezone.now()
    if interview.is_over(now):
        messages.info(request, "This interview is over; here is its report.")
        return redirect("mock_interview_report", pk=interview.pk)
    mock_interview_open(item=item, now=now)
    items = list(interview.items.select_related("question", "problem", "drill")
                 .annotate(attempt_count=Count("attempts")))
    for other in items:
        other.answered = bool(other.answer) or other.attempt_count > 0
    context = {
        "interview": interview, "item": item, "items": items, "now": now,
        "remaining": _clock(interview.ends_at - now),
        "previous": next((other for other in items if other.position == position - 1), None),
        "next": next((other for other in items if other.position == position + 1), None),
        "waiting": follow_up_wait(item),
    }
    if item.is_drill:
        context.update(worked=item.drill_attempt.worked(), typed=request.GET.get("typed", "")[:80] or item.answer,
                       unit_label=unit_label(item.drill_attempt.spec["answer_unit"]))
    if item.is_problem:
        context.update(
            source=item.draft or item.problem.starter_code,
            submissions=item_submissions(item),
            idempotency_key=uuid.uuid4().hex,
            max_source_bytes=settings.JUDGE_MAX_SOURCE_BYTES,
            editor_assets=bool(finders.find(EDITOR_SCRIPT)) and bool(finders.find(EDITOR_STYLESHEET)),
            editor_script=EDITOR_SCRIPT, editor_stylesheet=EDITOR_STYLESHEET,
        )
    return render(request, "interview/mock_interviews/item.html", context)


def _clock(left) -> str:
    """h:mm:ss or mm:ss, as the countdown shows it before its script runs."""
    seconds = max(0, int(left.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


@login_required
@require_POST
def mock_interview_answer_view(request, pk: int, position: int):
    item = _own_item(request, pk, position)
    try:
        mock_interview_answer(item=item, answer=request.POST.get("answer", ""))
    except InterviewOver as over:
        messages.error(request, str(over))
        return redirect("mock_interview_report", pk=pk)
    except InterviewError as error:
        messages.error(request, str(error))
        return redirect(item)
    messages.success(request, "Answer saved. You can change it until the time is up.")
    following = item.interview.items.filter(position=position + 1).first()
    return redirect(following or item)


@login_required
@require_POST
def mock_interview_estimate_view(request, pk: int, position: int):
    item = _own_item(request, pk, position)
    typed = request.POST.get("answer", "")
    try:
        mock_interview_estimate(item=item, answer=typed)
    except InterviewOver as over:
        messages.error(request, str(over))
        return redirect("mock_interview_report", pk=pk)
    except (InterviewError, AnswerRefused) as refusal:
        messages.error(request, str(refusal))
        return redirect(f"{item.get_absolute_url()}?{urlencode({'typed': typed[:80]})}")
    messages.success(request, "Estimate saved. You can change it until the time is up; the report shows the "
                              "worked solution.")
    following = item.interview.items.filter(position=position + 1).first()
    return redirect(following or item)


@login_required
@require_POST
def mock_interview_submit_view(request, pk: int, position: int):
    """The coding item's Run or Submit without JavaScript: send it, then show the submission's page."""
    item = _own_item(request, pk, position)
    source = request.POST.get("source", "").replace("\r\n", "\n")
    suite = Suite.SAMPLE if request.POST.get("tests") == Suite.SAMPLE else Suite.ALL
    key = request.POST.get("idempotency_key", "")[:IDEMPOTENCY_KEY_MAX] or None
    try:
        created = mock_interview_submit(item=item, source=source, suite=suite, idempotency_key=key)
    except InterviewOver as over:
        messages.error(request, str(over))
        return redirect("mock_interview_report", pk=pk)
    except (InterviewError, Refused) as refusal:
        messages.error(request, getattr(refusal, "message", str(refusal)))
        return redirect(item)
    return redirect(created.submission)


@login_required
@require_POST
def mock_interview_finish_view(request, pk: int):
    interview = _own_interview(request, pk)
    mock_interview_finish(interview=interview)
    return redirect("mock_interview_report", pk=pk)


@login_required
def mock_interview_report_view(request, pk: int):
    interview = _own_interview(request, pk)
    now = timezone.now()
    if not interview.is_over(now):
        messages.info(request, "The report opens when you finish the interview or its time runs out.")
        return redirect(interview.items.first())
    # The time ran out without a finish: close the time record now, at the end of the clock.
    mock_interview_finish(interview=interview, now=now)
    report = interview_report(interview=interview, now=now)
    for item_report in report.items:
        answer = item_report.item.answer
        item_report.answer_html = render_user_markdown(answer) if answer else ""
    context = {"report": report, "interview": interview, "partial_credit": PARTIAL_CREDIT,
               "problem_weight": PROBLEM_WEIGHT, "rubric": interview_rubric(report=report)}
    return render(request, "interview/mock_interviews/report.html", context)


@login_required
@require_POST
def mock_interview_key_points_view(request, pk: int, position: int):
    """The user's correction of which key points an answer covered; the score follows."""
    item = _own_item(request, pk, position)
    covered = [int(value) for value in request.POST.getlist("covered") if value.isdigit()]
    try:
        mock_interview_correct(item=item, covered=covered)
    except InterviewError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Key points of “{item.question.title}” updated; the score follows.")
    return redirect(reverse("mock_interview_report", args=[pk]) + f"#item-{position}")
