"""A user's submissions: the history, and one submission with its verdict, tests, figures, code and diff."""

from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render
from django.utils.safestring import mark_safe

from interview.figures import milliseconds, size
from interview.models import Judgement, Problem, Submission
from interview.rendering import highlight_python
from interview.selectors.hints import opened_whys
from interview.selectors.results import diagnoses, judged_tests, memory_limit_bytes, summary
from interview.selectors.standing import standing
from interview.selectors.submissions import (previous_submission, queue_position, source_diff, user_submissions,
                                             visible_submission)
from interview.selectors.workers import consuming

HISTORY_PAGE_SIZE = 25


@login_required
def submission_list_view(request):
    problem = Problem.objects.filter(slug=request.GET.get("problem", "")).first()
    page = Paginator(user_submissions(user=request.user, problem=problem), HISTORY_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "interview/submission_list.html", {"page": page, "problem": problem})


def _visible_or_404(request, pk: int) -> Submission:
    submission = visible_submission(user=request.user, pk=pk)
    if submission is None:
        raise Http404("No such submission of yours.")
    return submission


@login_required
def submission_detail_view(request, pk: int):
    submission = _visible_or_404(request, pk)
    previous = previous_submission(submission)
    context = {
        **result_context(submission),
        # Pygments escapes the source as it highlights it.
        "code_html": mark_safe(highlight_python(submission.source)),
        "previous": previous,
        "diff": source_diff(previous.source, submission.source) if previous else None,
    }
    return render(request, "interview/submission_detail.html", context)


@login_required
def submission_result_view(request, pk: int):
    """The result panel alone, which the pages swap in once a submission is judged."""
    return render(request, "interview/_submission_result.html", result_context(_visible_or_404(request, pk)))


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    text: str
    percent: float
    kind: str = ""


def result_context(submission: Submission) -> dict:
    judgement = submission.judgement
    results = judged_tests(submission)
    memory_limit, floor_set_it = memory_limit_bytes(submission.problem,
                                                    judgement.memory_reference_peak_bytes if judgement else None)
    return {
        "submission": submission,
        "judgement": judgement,
        "results": results,
        "summary": summary(results, submission),
        "diagnoses": diagnoses(results, submission.problem,
                               opened_whys(user=submission.user, problem=submission.problem)),
        "memory_limit": memory_limit,
        "memory_floor_set_it": floor_set_it,
        "position": queue_position(submission),
        "workers": len(consuming(submission.queue)) if submission.is_active else None,
        "progress_percent": round(100 * len(results) / submission.tests_total) if submission.tests_total else 0,
        "time_bars": _bars([(r.name, r.time_ms) for r in results], milliseconds),
        "memory_bars": _bars([(r.name, r.peak_bytes) for r in results], size),
        "reference_bars": _reference_bars(judgement) if judgement else [],
        "standing": standing(submission),
    }


def _bars(values: list[tuple[str, float | None]], show) -> list[Bar]:
    """Bars scaled to the largest value; unmeasured values get none."""
    measured = [(label, value) for label, value in values if value is not None]
    top = max((value for _, value in measured), default=0) or 1
    return [Bar(label, value, show(value), round(100 * value / top, 1)) for label, value in measured]


def _reference_bars(judgement: Judgement) -> list[tuple[str, list[Bar]]]:
    """Pairs of bars, yours and the reference's, for the timed median and the peak memory."""
    pairs = []
    for title, yours, reference, show in (
        ("Median time of the timed test", judgement.time_user_ms, judgement.time_reference_ms, milliseconds),
        ("Peak memory on the test closest to its limit", judgement.memory_user_peak_bytes,
         judgement.memory_reference_peak_bytes, size),
    ):
        if yours is not None and reference is not None:
            bars = _bars([("yours", yours), ("reference", reference)], show)
            pairs.append((title, [Bar(b.label, b.value, b.text, b.percent, b.label) for b in bars]))
    return pairs
