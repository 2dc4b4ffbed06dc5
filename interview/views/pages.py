"""Pages that are not about one part of the product: home, and the stylesheet for highlighted code."""

from django.db.models import Count
from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from interview.models import Difficulty, Question
from interview.rendering import pygments_stylesheet
from interview.selectors.questions import question_of_the_day, topics_with_question_counts


def home_view(request):
    topics = list(topics_with_question_counts())
    counts = dict(Question.objects.live().values_list("difficulty").annotate(n=Count("pk")).order_by())
    by_difficulty = {value: counts.get(value, 0) for value in Difficulty.values}
    context = {
        "topics": topics,
        "question_count": sum(topic.question_count for topic in topics),
        "by_difficulty": by_difficulty,
        "featured": question_of_the_day(timezone.localdate()),
    }
    return render(request, "interview/home.html", context)


@require_GET
@cache_control(public=True, max_age=60 * 60 * 24 * 365, immutable=True)
def pygments_css_view(request):
    """The code-highlighting stylesheet; its URL carries the Pygments version, so it can be cached for good."""
    return HttpResponse(pygments_stylesheet(), content_type="text/css; charset=utf-8")
