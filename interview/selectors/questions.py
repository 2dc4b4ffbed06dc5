"""Reads of the question bank for the pages: listing, filtering, full-text search, neighbours."""

import hashlib
import re
import time
from dataclasses import dataclass
from datetime import date

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection, transaction
from django.db.models.signals import post_delete, post_migrate, post_save
from django.dispatch import receiver
from django.db.models import Case, Count, F, IntegerField, Q, QuerySet, Value, When

from interview.models import Difficulty, Question, Topic
from interview.models.questions import SEARCH_CONFIG

_WORD = re.compile(r"\w+")
_MIN_PREFIX_LENGTH = 3
_WEB_SEARCH_OPERATORS = re.compile(r'"|(?:^|\s)-\w|\bor\b', re.IGNORECASE)


def _difficulty_rank() -> Case:
    return Case(
        *(When(difficulty=value, then=Value(rank)) for rank, value in enumerate(Difficulty.values)),
        output_field=IntegerField(),
    )


def topics_with_question_counts() -> QuerySet[Topic]:
    """Live topics in display order, each annotated with `question_count` (its live questions)."""
    live_questions = Q(questions__retired_at__isnull=True)
    return Topic.objects.live().annotate(question_count=Count("questions", filter=live_questions))


# The version as this process last read it, and when. Another process's write shows within
# VERSION_REUSE_S; a write in this process, and a flush of the database, forget it at once.
VERSION_REUSE_S = 1.0
_version_read: tuple[str, float] | None = None


def question_bank_version() -> str:
    """A fingerprint of everything the question list shows: every topic's own fields, with the number of
    questions and the latest change to any of them, read in one small query at most once a second.

    Every write to a question (sync_content, the admin, retiring one) saves its `updated_at`, and a removed
    question changes the count, so the fingerprint changes with any write that shows on the list, in whichever
    process it happened; a cache keyed by it never needs clearing. Inside a transaction (a test's, or a
    request's that writes) it is always read afresh, since what the transaction sees is its own.
    """
    global _version_read
    read, now = _version_read, time.monotonic()
    if read is not None and now - read[1] < VERSION_REUSE_S and not connection.in_atomic_block:
        return read[0]
    questions, topics = Question._meta.db_table, Topic._meta.db_table
    with connection.cursor() as cursor:
        # Plain SQL: with the list served from a cache, building an ORM query would be most of the request.
        cursor.execute(
            f"SELECT (SELECT COUNT(*) FROM {questions}), (SELECT MAX(updated_at) FROM {questions}), "
            f"id, slug, name, description, position, retired_at FROM {topics} ORDER BY id"
        )
        version = hashlib.blake2b(repr(cursor.fetchall()).encode(), digest_size=16).hexdigest()
    _version_read = None if connection.in_atomic_block else (version, now)
    return version


@receiver([post_save, post_delete], sender=Question)
@receiver([post_save, post_delete], sender=Topic)
@receiver(post_migrate)
def _forget_version(**kwargs) -> None:
    """Connected when this module is imported, which a process that serves the list does before it reads."""
    _forget_version_now()
    if connection.in_atomic_block:
        # Again once the write is committed: a read between the write and the commit saw the old bank.
        transaction.on_commit(_forget_version_now)


def _forget_version_now() -> None:
    global _version_read
    _version_read = None


def question_list(*, topic: Topic | None = None, difficulty: str = "", query: str = "") -> QuerySet[Question]:
    """Live questions matching the filters.

    Without a query they come in study order (topic, then easy to hard, then title); with one, best match
    first, ranked by PostgreSQL's full-text search where available.
    """
    questions = Question.objects.live().select_related("topic")
    if topic is not None:
        questions = questions.filter(topic=topic)
    if difficulty:
        questions = questions.filter(difficulty=difficulty)
    questions = questions.annotate(difficulty_rank=_difficulty_rank())
    if query.strip():
        return _search(questions, query)
    return questions.order_by("topic__position", "difficulty_rank", "title")


def _search(questions: QuerySet[Question], query: str) -> QuerySet[Question]:
    if connection.vendor == "postgresql":
        return _search_postgresql(questions, query)
    return _search_by_substring(questions, query)


def _search_postgresql(questions: QuerySet[Question], query: str) -> QuerySet[Question]:
    """Full-text search with stemming and ranking, served by the GIN index on search_vector.

    The web-search syntax works (quotes, `or`, `-word`); a query of plain words also matches words that
    start with them, so a word still being typed (`flash`) finds `FlashAttention`. A match on the title,
    the slug or the prompt as a plain substring also counts, for identifiers the text parser splits apart
    (`scaled_dot_product_attention`).
    """
    search = SearchQuery(query, search_type="websearch", config=SEARCH_CONFIG)
    words = _WORD.findall(query)
    if words and not _WEB_SEARCH_OPERATORS.search(query):
        search |= SearchQuery(
            " & ".join(f"{word}:*" for word in words), search_type="raw", config=SEARCH_CONFIG
        )
    literal = query.strip()
    matches = (
        Q(search_vector=search)
        | Q(title__icontains=literal)
        | Q(slug__icontains=literal)
        | Q(prompt__icontains=literal)
    )
    # Normalisation 32 maps the rank into [0, 1), so a title that contains the query verbatim comes first.
    title_hit = Case(When(title__icontains=literal, then=Value(1.0)), default=Value(0.0))
    return (
        questions.filter(matches)
        .annotate(rank=SearchRank(F("search_vector"), search, normalization=Value(32)) + title_hit)
        .order_by("-rank", "topic__position", "difficulty_rank", "title")
    )


def _search_by_substring(questions: QuerySet[Question], query: str) -> QuerySet[Question]:
    """Every word of the query somewhere in the question; title hits first. For databases without FTS."""
    words = _WORD.findall(query) or [query.strip()]
    for word in words:
        questions = questions.filter(
            Q(title__icontains=word)
            | Q(prompt__icontains=word)
            | Q(answer_markdown__icontains=word)
            | Q(key_points__icontains=word)
        )
    title_hits = Value(0)
    for word in words:
        title_hits = title_hits + Case(When(title__icontains=word, then=Value(1)), default=Value(0))
    return questions.annotate(rank=title_hits).order_by(
        "-rank", "topic__position", "difficulty_rank", "title"
    )


def question_of_the_day(today: date) -> Question | None:
    """One live question, a different one each day, cycling through the bank in a stable order."""
    questions = Question.objects.live().select_related("topic").order_by("slug")
    count = questions.count()
    return questions[today.toordinal() % count] if count else None


@dataclass(frozen=True)
class Neighbours:
    previous: Question | None
    next: Question | None
    position: int
    total: int


def question_neighbours(question: Question) -> Neighbours:
    """The questions before and after this one in its topic's study order (none for a retired question)."""
    in_topic = list(
        question_list(topic=question.topic).defer("prompt", "answer_markdown", "answer_html", "search_vector")
    )
    slugs = [q.slug for q in in_topic]
    if question.slug not in slugs:
        return Neighbours(previous=None, next=None, position=0, total=len(in_topic))
    index = slugs.index(question.slug)
    return Neighbours(
        previous=in_topic[index - 1] if index > 0 else None,
        next=in_topic[index + 1] if index + 1 < len(in_topic) else None,
        position=index + 1,
        total=len(in_topic),
    )


def related_questions(question: Question) -> QuerySet[Question]:
    """The live questions this one links to, in study order."""
    return (
        question.related.live()
        .select_related("topic")
        .annotate(difficulty_rank=_difficulty_rank())
        .order_by("topic__position", "difficulty_rank", "title")
    )
