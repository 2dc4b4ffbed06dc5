"""Writes to questions outside the content sync: admin saves, and the full-text search vectors."""

from collections.abc import Iterable

from django.contrib.postgres.search import SearchVector
from django.db import connection, transaction
from django.db.models import Value

from interview.models import Question
from interview.models.questions import SEARCH_CONFIG
from interview.rendering import render_markdown


def question_search_vectors_refresh(*, question_ids: Iterable[int]) -> None:
    """Recompute the PostgreSQL search vectors of these questions; other databases search without one.

    Weights rank a hit in the title (A) above the prompt and key points (B) above the answer (C).
    """
    if connection.vendor != "postgresql":
        return
    for question in Question.objects.filter(pk__in=list(question_ids)).only("pk", "key_points"):
        key_points = " ".join(
            " ".join([point["text"], *point.get("phrasings", [])]) for point in question.key_points
        )
        Question.objects.filter(pk=question.pk).update(
            search_vector=SearchVector("title", weight="A", config=SEARCH_CONFIG)
            + SearchVector("prompt", weight="B", config=SEARCH_CONFIG)
            + SearchVector(Value(key_points), weight="B", config=SEARCH_CONFIG)
            + SearchVector("answer_markdown", weight="C", config=SEARCH_CONFIG)
        )


@transaction.atomic
def question_save(*, question: Question) -> Question:
    """Save a question written in the admin, with its answer rendered and its search entry refreshed."""
    question.answer_html = render_markdown(question.answer_markdown)
    question.save()
    question_search_vectors_refresh(question_ids=[question.pk])
    return question
