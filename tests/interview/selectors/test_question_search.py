"""Searching the real bank ranks what was looked for first, on SQLite's FTS5 and on PostgreSQL alike.

Run on both: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/<name> pytest -n 0 <this file>` for PostgreSQL.
"""

import re

import pytest
from django.db import connection

from interview.models import Question
from interview.selectors.questions import question_list
from interview.services.content_sync import sync_questions
from interview.services.questions import question_save
from tests.interview.factories import QuestionFactory, TopicFactory

pytestmark = pytest.mark.django_db
on_sqlite = pytest.mark.skipif(connection.vendor != "sqlite", reason="the FTS5 index is SQLite's")


def slugs(query: str) -> list[str]:
    return [question.slug for question in question_list(query=query)]


def test_each_title_in_the_bank_finds_its_question_first(real_bank):
    missed = {
        question.title: slugs(question.title)[:3]
        for question in Question.objects.live()
        if slugs(question.title)[:1] != [question.slug]
    }
    assert missed == {}


def test_kv_cache_ranks_the_grouped_query_question_above_rnns_versus_transformers(real_bank):
    results = slugs("KV cache")
    assert results.index("gqa-mqa") < results.index("rnn-vs-transformer")
    assert results[0] == "paged-kv-cache"


def test_zero_written_as_the_name_finds_the_zero_questions_only(real_bank):
    results = slugs("ZeRO")
    assert results[0] == "fsdp-zero"
    mentioning = {
        question.slug for question in Question.objects.live()
        if "ZeRO" in question.title + question.prompt + question.answer_markdown
    }
    assert set(results) == mentioning and len(results) < 10
    assert len(slugs("zero")) > len(results)  # the word, lowercase, is every answer that says it


def test_words_are_stemmed_and_a_word_being_typed_matches(real_bank):
    assert slugs("sharding")[0] == "fsdp-zero"
    assert slugs("warming up")[0] == "warmup-cosine-schedule"
    assert slugs("speculat")[0] == "speculative-decoding"


def test_a_result_shows_the_passage_of_the_answer_that_matched(real_bank, client):
    html = client.get("/questions/", {"q": "online softmax"}).content.decode()
    snippets = re.findall(r'<p class="question-item__snippet">(.*?)</p>', html, re.DOTALL)
    assert snippets and all("<mark>" in snippet for snippet in snippets)
    assert re.search(r"<mark>online</mark> <mark>softmax</mark>", snippets[0], re.IGNORECASE)
    assert "**" not in snippets[0] and "```" not in snippets[0]


def test_search_syntax_in_a_query_is_read_as_words(real_bank):
    for query in ['"unbalanced AND (', "NEAR(kv cache)", "*", "ZeRO-", "-"]:
        assert isinstance(slugs(query), list)
    assert slugs("kv AND cache")[:1] == slugs("kv and cache")[:1]


@on_sqlite
def test_the_index_follows_admin_writes(db):
    topic = TopicFactory()
    question = question_save(question=QuestionFactory.build(
        slug="flash-decoding", title="Flash decoding", topic=topic, origin="admin",
        answer_markdown="Splits the keys across thread blocks.",
    ))
    assert slugs("thread blocks") == ["flash-decoding"]
    question.answer_markdown = "Parallelises over the sequence of cached keys."
    question_save(question=question)
    assert slugs("thread blocks") == [] and slugs("parallelising") == ["flash-decoding"]
    question.delete()
    assert slugs("parallelising") == []
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM interview_question_search")
        assert cursor.fetchone() == (Question.objects.count(),)


@on_sqlite
def test_the_index_follows_the_sync(content):
    content.write_question("ring-attention", answer="Passes key blocks around a ring of devices.\n")
    sync_questions(content_dir=content.root)
    assert slugs("ring of devices") == ["ring-attention"]
    content.write_question("ring-attention", answer="Rotates the keys between neighbours.\n")
    sync_questions(content_dir=content.root)
    assert slugs("ring of devices") == [] and slugs("neighbour") == ["ring-attention"]
