"""Reads of the bank: study order, filters, search on PostgreSQL and the SQLite fallback, neighbours."""

from datetime import date

import pytest
from django.db import connection
from django.utils import timezone

from interview.selectors.questions import (
    question_list,
    question_neighbours,
    question_of_the_day,
    related_questions,
    topics_with_question_counts,
)
from tests.interview.factories import QuestionFactory, TopicFactory

pytestmark = pytest.mark.django_db
on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="full-text search is PostgreSQL's"
)


@pytest.fixture
def bank():
    """A small bank of two topics, searchable as sync_content would leave it."""
    from interview.services.questions import question_search_vectors_refresh

    attention = TopicFactory(slug="attention", name="Attention", position=1)
    parallelism = TopicFactory(slug="parallelism", name="Parallelism", position=2)
    questions = [
        QuestionFactory(
            slug="fsdp-zero",
            title="FSDP and ZeRO",
            topic=parallelism,
            difficulty="hard",
            prompt="How do the stages shard optimizer state, gradients and parameters?",
            answer_markdown="Each rank keeps 1/N of the model state.",
        ),
        QuestionFactory(
            slug="ddp",
            title="Data parallelism with DDP",
            topic=parallelism,
            difficulty="easy",
            prompt="What does each GPU hold?",
            answer_markdown="Gradients are all-reduced in buckets; ZeRO goes further.",
        ),
        QuestionFactory(
            slug="flash-attention",
            title="FlashAttention",
            topic=attention,
            difficulty="hard",
            prompt="How is the T x T matrix avoided?",
            answer_markdown="Tiling and an online softmax keep blocks in SRAM.",
            key_points=[
                {"text": "Tiles Q, K and V", "phrasings": ["blockwise tiling", "on-chip memory"]},
                {"text": "Online softmax", "phrasings": ["running maximum", "rescaling"]},
                {"text": "Recomputes in backward", "phrasings": ["recompute attention", "no stored matrix"]},
            ],
        ),
        QuestionFactory(
            slug="sdpa",
            title="Scaled dot-product attention",
            topic=attention,
            difficulty="medium",
            prompt="What does F.scaled_dot_product_attention dispatch to?",
            answer_markdown="Flash, memory-efficient or math kernels.",
        ),
        QuestionFactory(
            slug="attention-basics", title="Attention basics", topic=attention, difficulty="easy"
        ),
    ]
    question_search_vectors_refresh(question_ids=[q.pk for q in questions])
    return {q.slug: q for q in questions}


def slugs(questions) -> list[str]:
    return [q.slug for q in questions]


def test_without_a_query_questions_come_in_study_order(bank):
    assert slugs(question_list()) == ["attention-basics", "sdpa", "flash-attention", "ddp", "fsdp-zero"]


def test_filters_by_topic_and_difficulty(bank):
    parallelism = bank["ddp"].topic
    assert slugs(question_list(topic=parallelism)) == ["ddp", "fsdp-zero"]
    assert slugs(question_list(difficulty="hard")) == ["flash-attention", "fsdp-zero"]
    assert slugs(question_list(topic=parallelism, difficulty="hard")) == ["fsdp-zero"]


def test_retired_questions_and_questions_of_retired_topics_are_not_listed(bank):
    bank["sdpa"].retired_at = timezone.now()
    bank["sdpa"].save()
    parallelism = bank["ddp"].topic
    parallelism.retired_at = timezone.now()
    parallelism.save()
    assert slugs(question_list()) == ["attention-basics", "flash-attention"]
    assert slugs(question_list(query="attention")) == ["attention-basics", "flash-attention"]


def test_a_title_match_ranks_first(bank):
    results = slugs(question_list(query="ZeRO"))
    assert results[0] == "fsdp-zero"
    assert "ddp" in results  # its answer mentions ZeRO


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("online softmax", "flash-attention"),  # the answer
        ("blockwise tiling", "flash-attention"),  # a key point's phrasing
        ("optimizer state", "fsdp-zero"),  # the prompt
        ("flash", "flash-attention"),  # a word still being typed
        ("scaled_dot_product_attention", "sdpa"),  # an identifier
    ],
)
def test_search_reaches_titles_prompts_answers_and_key_points(bank, query, expected):
    assert slugs(question_list(query=query))[:1] == [expected]


def test_a_query_that_matches_nothing_finds_nothing(bank):
    assert slugs(question_list(query="convolutional kernels for audio")) == []


def test_search_combines_with_the_filters(bank):
    assert slugs(question_list(query="attention", difficulty="hard")) == ["flash-attention"]


@on_postgresql
def test_postgresql_search_stems_words(bank):
    assert slugs(question_list(query="sharding"))[:1] == ["fsdp-zero"]
    assert "flash-attention" in slugs(question_list(query="tiles"))


@on_postgresql
def test_postgresql_search_understands_web_search_syntax(bank):
    assert "ddp" not in slugs(question_list(query="zero -buckets"))
    assert set(slugs(question_list(query="sram or buckets"))) == {"flash-attention", "ddp"}


def test_neighbours_follow_the_study_order_within_the_topic(bank):
    neighbours = question_neighbours(bank["sdpa"])
    assert (neighbours.previous.slug, neighbours.next.slug) == ("attention-basics", "flash-attention")
    assert (neighbours.position, neighbours.total) == (2, 3)
    first = question_neighbours(bank["attention-basics"])
    assert (first.previous, first.next.slug) == (None, "sdpa")


def test_a_retired_question_has_no_neighbours(bank):
    bank["sdpa"].retired_at = timezone.now()
    bank["sdpa"].save()
    neighbours = question_neighbours(bank["sdpa"])
    assert (neighbours.previous, neighbours.next, neighbours.total) == (None, None, 2)


def test_related_questions_leave_out_retired_ones(bank):
    bank["fsdp-zero"].related.set([bank["ddp"], bank["sdpa"]])
    bank["ddp"].retired_at = timezone.now()
    bank["ddp"].save()
    assert slugs(related_questions(bank["fsdp-zero"])) == ["sdpa"]


def test_topics_count_only_their_live_questions(bank):
    bank["sdpa"].retired_at = timezone.now()
    bank["sdpa"].save()
    assert [(t.slug, t.question_count) for t in topics_with_question_counts()] == [
        ("attention", 2),
        ("parallelism", 2),
    ]


def test_the_question_of_the_day_changes_daily_and_is_always_live(bank):
    days = [question_of_the_day(date(2026, 1, day)).slug for day in range(1, 6)]
    assert sorted(days) == sorted(bank)
    assert question_of_the_day(date(2026, 1, 1)).slug == days[0]
