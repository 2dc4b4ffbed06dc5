"""Reads of the question bank for the pages: listing, filtering, full-text search, neighbours."""

import hashlib
import re
import time
from dataclasses import dataclass
from datetime import date

from django.contrib.postgres.search import SearchHeadline, SearchQuery, SearchRank
from django.db import connection, transaction
from django.db.models import Case, Count, F, FloatField, IntegerField, Q, QuerySet, TextField, Value, When
from django.db.models.expressions import RawSQL
from django.db.models.functions import Concat, StrIndex
from django.db.models.signals import m2m_changed, post_delete, post_migrate, post_save
from django.dispatch import receiver

from interview.models import Difficulty, Problem, Question, Topic
from interview.models.questions import SEARCH_CONFIG

_WORD = re.compile(r"\w+")
_MIN_PREFIX_LENGTH = 3
_WEB_SEARCH_OPERATORS = re.compile(r'"|(?:^|\s)-\w|\bor\b', re.IGNORECASE)
# A word written with a capital after a small letter (ZeRO, FlashAttention, LoRA) is a name, searched as
# written: "ZeRO" means the optimizer, not every answer that says "zero". A word after `-` is excluded instead.
_NAME = re.compile(r"(?<![-\w])\w*[a-z][A-Z]\w*")
# What FTS5's snippet() puts around each hit: characters no question contains, replaced by <mark> when shown.
SNIPPET_OPEN, SNIPPET_CLOSE = "\x02", "\x03"
_SNIPPET_WORDS = 24
# bm25 weights of the SQLite index's columns (title, prompt, key points, answer), as PostgreSQL's A, B, B, C.
_SQLITE_COLUMN_WEIGHTS = "10.0, 4.0, 4.0, 1.0"


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
    questions and the latest change to any of them, and the same of the problems a topic's list links to,
    read in one small query at most once a second.

    Every write to a question (sync_content, the admin, retiring one) saves its `updated_at`, and a removed
    question changes the count; a problem's sync saves its `updated_at` too (its topics included), and one
    retired or restored changes the count of live ones. So the fingerprint changes with any write that shows
    on the list, in whichever process it happened; a cache keyed by it never needs clearing. Inside a
    transaction (a test's, or a request's that writes) it is always read afresh, since what the transaction
    sees is its own.
    """
    global _version_read
    read, now = _version_read, time.monotonic()
    if read is not None and now - read[1] < VERSION_REUSE_S and not connection.in_atomic_block:
        return read[0]
    questions, topics = Question._meta.db_table, Topic._meta.db_table
    problems, problem_topics = Problem._meta.db_table, Problem.topics.through._meta.db_table
    with connection.cursor() as cursor:
        # Plain SQL: with the list served from a cache, building an ORM query would be most of the request.
        cursor.execute(
            f"SELECT (SELECT COUNT(*) FROM {questions}), (SELECT MAX(updated_at) FROM {questions}), "
            f"(SELECT COUNT(*) FROM {problems} WHERE retired_at IS NULL), "
            f"(SELECT MAX(updated_at) FROM {problems}), (SELECT COUNT(*) FROM {problem_topics}), "
            f"id, slug, name, description, position, retired_at FROM {topics} ORDER BY id"
        )
        version = hashlib.blake2b(repr(cursor.fetchall()).encode(), digest_size=16).hexdigest()
    _version_read = None if connection.in_atomic_block else (version, now)
    return version


@receiver([post_save, post_delete], sender=Question)
@receiver([post_save, post_delete], sender=Topic)
@receiver([post_save, post_delete], sender=Problem)
@receiver(m2m_changed, sender=Problem.topics.through)
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
    first, ranked by full-text search (PostgreSQL's, or SQLite's FTS5), each with `search_snippet`: the
    passage of the answer that matched, hits between SNIPPET_OPEN and SNIPPET_CLOSE (empty if none did).
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
    names = _NAME.findall(query)
    for index, name in enumerate(names):
        text = Concat("title", Value(" "), "prompt", Value(" "), "answer_markdown", output_field=TextField())
        questions = questions.annotate(**{f"name_at_{index}": StrIndex(text, Value(name))}).filter(
            **{f"name_at_{index}__gt": 0}
        )
    # A query of names only is answered by where they are written, even where the text parser reads them as
    # part of something else (PostgreSQL takes "FSDP/ZeRO" for a file path).
    names_only = bool(names) and len(names) == len(_WORD.findall(query))
    if connection.vendor == "postgresql":
        return _search_postgresql(questions, query, names_only=names_only)
    return _search_sqlite(questions, query, names_only=names_only)


def _search_postgresql(questions: QuerySet[Question], query: str, *, names_only: bool) -> QuerySet[Question]:
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
    if names_only:
        matches = Q()
    # Normalisation 32 maps the rank into [0, 1), so a title that contains the query verbatim comes first.
    headline = SearchHeadline(
        "answer_markdown",
        search,
        config=SEARCH_CONFIG,
        start_sel=SNIPPET_OPEN,
        stop_sel=SNIPPET_CLOSE,
        max_words=_SNIPPET_WORDS,
        min_words=_SNIPPET_WORDS // 2,
        max_fragments=1,
    )
    return (
        questions.filter(matches)
        .annotate(
            rank=SearchRank(F("search_vector"), search, normalization=Value(32)) + _title_hit(literal),
            search_snippet=headline,
        )
        .order_by("-rank", "topic__position", "difficulty_rank", "title")
    )


def _title_hit(literal: str) -> Case:
    """2 for a title that is the query, 1 for one that contains it: such a question is what was looked for."""
    return Case(
        When(title__iexact=literal, then=Value(2.0)),
        When(title__icontains=literal, then=Value(1.0)),
        default=Value(0.0),
        output_field=FloatField(),
    )


def _search_sqlite(questions: QuerySet[Question], query: str, *, names_only: bool) -> QuerySet[Question]:
    """Full-text search in SQLite's FTS5 index (migration 0008): porter-stemmed, ranked by bm25.

    Every word must occur (or, from three letters on, a word starting with it: one still being typed). A
    title that contains the query comes first; a match on the title or slug as a plain substring also counts,
    as on PostgreSQL.
    """
    words = _WORD.findall(query)
    literal = query.strip()
    if not words:
        return questions.filter(Q(title__icontains=literal) | Q(slug__icontains=literal))
    # Each word quoted, so that nothing a user types is read as FTS5 syntax; `*` makes it a prefix, for words
    # long enough that the prefix still says something (a lone `a` would match most of the index, slowly).
    match = " ".join(
        '"{}"{}'.format(word.replace('"', '""'), "*" if len(word) >= _MIN_PREFIX_LENGTH else "") for word in words
    )
    index, row = "interview_question_search", f"{Question._meta.db_table}.id"
    in_index = f"FROM {index} WHERE {index} MATCH %s AND {index}.rowid = {row}"
    bm25 = RawSQL(f"SELECT bm25({index}, {_SQLITE_COLUMN_WEIGHTS}) {in_index}", [match], FloatField())
    snippet = RawSQL(
        f"SELECT snippet({index}, 3, %s, %s, '…', {_SNIPPET_WORDS}) {in_index}",
        [SNIPPET_OPEN, SNIPPET_CLOSE, match],
        TextField(),
    )
    # One evaluation of the query for the rows that match; bm25 and the snippet only for those rows.
    in_results = RawSQL(f"SELECT rowid FROM {index} WHERE {index} MATCH %s", [match])
    matches = Q() if names_only else Q(pk__in=in_results) | Q(title__icontains=literal) | Q(slug__icontains=literal)
    return (
        questions.annotate(bm25=bm25, title_hit=_title_hit(literal), search_snippet=snippet)
        .filter(matches)
        .order_by("-title_hit", F("bm25").asc(nulls_last=True), "topic__position", "difficulty_rank", "title")
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
