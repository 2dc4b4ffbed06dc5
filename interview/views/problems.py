"""The coding problems' pages: the list, and one problem with its statement, editor and results.

The problem page works without JavaScript (the form posts the textarea and lands on the submission's page);
with it, interview/static/interview/js/judge.js runs and submits through the JSON API and shows results live.
"""

import uuid

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from interview.models import Difficulty, EditorSettings, Keymap, Problem, SolutionReveal, Suite
from interview.models.editor_settings import FONT_SIZES
from interview.selectors.problems import all_tags, problem_list, problem_topics, user_draft
from interview.selectors.standing import best_submission, standing
from interview.selectors.submissions import has_solved, user_submissions
from interview.services.problems import draft_save, solution_reveal
from interview.services.submissions import Refused, submission_create
from interview.views.refusals import refusal_status
from interview.views.submission_requests import IDEMPOTENCY_KEY_MAX

EDITOR_SCRIPT = "interview/editor/editor.js"
EDITOR_STYLESHEET = "interview/editor/editor.css"
RECENT_SUBMISSIONS = 8


def problem_list_view(request):
    difficulty = request.GET.get("difficulty", "")
    difficulty = difficulty if difficulty in Difficulty.values else ""
    tags = all_tags()
    tag = request.GET.get("tag", "")
    tag = tag if tag in tags else ""
    # As on the question list, an unknown topic is dropped rather than an error page.
    topics = problem_topics()
    topic = next((choice for choice in topics if choice.slug == request.GET.get("topic", "")), None)
    context = {
        "problems": problem_list(user=request.user, difficulty=difficulty, tag=tag, topic=topic),
        "difficulty": difficulty, "difficulties": Difficulty.choices, "tag": tag, "tags": tags,
        "topic": topic, "topics": topics,
    }
    return render(request, "interview/problem_list.html", context)


def problem_detail_view(request, slug: str):
    """A problem; a retired one still shows (submissions link to it) but takes no new submission."""
    problem = get_object_or_404(Problem, slug=slug)
    return render(request, "interview/problem_detail.html", _detail_context(request, problem))


def _detail_context(request, problem: Problem, **extra) -> dict:
    user = request.user
    solved = has_solved(user=user, problem=problem)
    revealed = user.is_authenticated and SolutionReveal.objects.filter(user=user, problem=problem).exists()
    recent = list(user_submissions(user=user, problem=problem)[:RECENT_SUBMISSIONS]) if user.is_authenticated else []
    # None until a signed-in user first changes a setting; the page then starts from this browser's own.
    saved_settings = EditorSettings.objects.filter(user=user).first() if user.is_authenticated else None
    best = best_submission(user=user, problem=problem) if solved else None
    draft = user_draft(user=user, problem=problem)
    context = {
        "problem": problem,
        "follow_ups": problem.follow_ups.select_related("question", "drill"),
        "topics": problem.topics.all(),
        "source": draft.source if draft else problem.starter_code,
        "draft": draft,
        "solved": solved,
        "best": best,
        "best_standing": standing(best) if best else None,
        "show_explanation": solved or revealed,
        "recent": recent,
        "active": next((submission for submission in recent if submission.is_active), None),
        "idempotency_key": uuid.uuid4().hex,
        "max_source_bytes": settings.JUDGE_MAX_SOURCE_BYTES,
        # The editor bundle is optional: without it the page keeps its plain textarea.
        "editor_assets": bool(finders.find(EDITOR_SCRIPT)) and bool(finders.find(EDITOR_STYLESHEET)),
        "editor_script": EDITOR_SCRIPT,
        "editor_stylesheet": EDITOR_STYLESHEET,
        "editor_font_sizes": FONT_SIZES,
        "editor_keymaps": Keymap.choices,
        "editor_settings": saved_settings.as_json() if saved_settings else None,
        "suite_labels": dict(Suite.choices),
    }
    context.update(extra)
    return context


@login_required
@require_POST
def problem_submit_view(request, slug: str):
    """The form's Run or Submit without JavaScript: keep the editor's code as the draft, queue it, then show
    the submission's page."""
    problem = get_object_or_404(Problem.objects.live(), slug=slug)
    source = request.POST.get("source", "").replace("\r\n", "\n")
    suite = Suite.SAMPLE if request.POST.get("tests") == Suite.SAMPLE else Suite.ALL
    key = request.POST.get("idempotency_key", "")[:IDEMPOTENCY_KEY_MAX] or None
    try:
        draft_save(user=request.user, problem=problem, source=source)
        created = submission_create(user=request.user, problem=problem, source=source, suite=suite, idempotency_key=key)
    except Refused as refusal:
        context = _detail_context(request, problem, source=source, refusal=refusal.message)
        return render(request, "interview/problem_detail.html", context, status=refusal_status(refusal))
    return redirect(created.submission)


@login_required
@require_POST
def problem_solution_view(request, slug: str):
    """Show the model answer before solving: recorded, so the problem list says the solution was read."""
    problem = get_object_or_404(Problem, slug=slug)
    solution_reveal(user=request.user, problem=problem)
    messages.info(request, "The model answer is open below. Your solved status counts only an accepted submission.")
    return redirect(f"{problem.get_absolute_url()}#solution")
