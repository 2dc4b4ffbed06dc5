"""The published problem sets: the list, and one set with the user's progress through it."""

from django.shortcuts import get_object_or_404, render

from interview.models import ProblemSet
from interview.models.mock_interviews import durations_for
from interview.rendering import render_markdown
from interview.selectors.problem_sets import (
    follow_up_count, item_statuses, published_sets_with_progress, set_items, set_progress,
)


def problem_set_list_view(request):
    sets = published_sets_with_progress(user=request.user)
    for problem_set in sets:
        # Curated in the admin, so trusted, and rendered without raw HTML all the same.
        problem_set.description_html = render_markdown(problem_set.description) if problem_set.description else ""
    return render(request, "interview/problem_sets/list.html", {"sets": sets})


def problem_set_detail_view(request, slug: str):
    problem_set = get_object_or_404(ProblemSet.objects.published(), slug=slug)
    items = set_items(problem_set)
    statuses = item_statuses(user=request.user, items=items)
    for item in items:
        item.status = statuses[item.pk]
    budget = problem_set.time_budget_minutes
    context = {
        "problem_set": problem_set,
        # Curated in the admin, so trusted, and rendered without raw HTML all the same.
        "description_html": render_markdown(problem_set.description) if problem_set.description else "",
        "items": items,
        "follow_up_count": follow_up_count(items),
        "progress": set_progress(user=request.user, problem_set=problem_set, items=items),
        "durations": durations_for(problem_set),
        "default_duration": budget or 45,
    }
    return render(request, "interview/problem_sets/detail.html", context)
