"""sync_questions: the database follows the files, idempotently and all or nothing."""

import pytest
from django.db import connection

from interview.content.errors import ContentError
from interview.models import Origin, Question, Topic
from interview.services.content_sync import sync_questions
from tests.interview.content_tree import DEFAULT_TOPICS
from tests.interview.factories import QuestionFactory, TopicFactory

pytestmark = pytest.mark.django_db


def sync(content) -> dict[str, dict[str, int]]:
    """Run the sync and return its counts by kind, e.g. {"Questions": {"created": 2, ...}}."""
    reports = sync_questions(content_dir=content.root)
    return {
        report.kind: {
            name: getattr(report, name) for name in ("created", "updated", "unchanged", "retired", "restored")
        }
        for report in reports
    }


def counts(created=0, updated=0, unchanged=0, retired=0, restored=0) -> dict[str, int]:
    return {
        "created": created,
        "updated": updated,
        "unchanged": unchanged,
        "retired": retired,
        "restored": restored,
    }


def snapshot() -> list[tuple]:
    """Everything the sync may write, to compare the database before and after."""
    questions = list(
        Question.objects.order_by("slug").values_list(
            "slug",
            "title",
            "topic__slug",
            "difficulty",
            "prompt",
            "answer_markdown",
            "answer_html",
            "key_points",
            "source_path",
            "origin",
            "retired_at",
            "updated_at",
        )
    )
    related = sorted(Question.related.through.objects.values_list("from_question__slug", "to_question__slug"))
    topics = list(
        Topic.objects.order_by("slug").values_list("slug", "name", "description", "position", "retired_at")
    )
    return [questions, related, topics]


def test_a_first_sync_creates_the_topics_and_questions_from_the_files(content):
    content.write_question(
        "flash-attention", related=["sdpa"], answer="```python\nclass MHSA:\n    pass\n```\n"
    )
    content.write_question("sdpa", difficulty="easy")

    assert sync(content) == {"Topics": counts(created=2), "Questions": counts(created=2), "Drills": counts()}

    question = Question.objects.get(slug="flash-attention")
    assert question.origin == Origin.FILE
    assert question.topic.slug == "attention"
    assert question.source_path == "questions/attention/flash-attention.md"
    assert question.key_points[0] == {
        "text": "flash-attention point 1",
        "phrasings": ["flash-attention phrase 1a", "flash-attention phrase 1b"],
    }
    assert '<span class="k">class</span>' in question.answer_html
    assert [q.slug for q in question.related.all()] == ["sdpa"]
    assert list(Topic.objects.values_list("slug", "position")) == [("attention", 1), ("parallelism", 2)]


def test_a_second_sync_changes_nothing_and_says_so(content):
    content.write_question("flash-attention", related=["sdpa"])
    content.write_question("sdpa")
    sync(content)
    before = snapshot()

    assert sync(content) == {"Topics": counts(unchanged=2), "Questions": counts(unchanged=2), "Drills": counts()}
    assert snapshot() == before


def test_an_edited_file_updates_its_row(content):
    content.write_question("sdpa")
    sync(content)
    content.write_question(
        "sdpa", title="F.scaled_dot_product_attention", difficulty="hard", answer="A *new* answer.\n"
    )

    assert sync(content)["Questions"] == counts(updated=1)
    question = Question.objects.get(slug="sdpa")
    assert (question.title, question.difficulty) == ("F.scaled_dot_product_attention", "hard")
    assert question.answer_html == "<p>A <em>new</em> answer.</p>"


def test_changing_only_the_related_questions_counts_as_an_update(content):
    content.write_question("sdpa")
    content.write_question("flash-attention")
    sync(content)
    content.write_question("sdpa", related=["flash-attention"])

    assert sync(content)["Questions"] == counts(updated=1, unchanged=1)
    assert [q.slug for q in Question.objects.get(slug="sdpa").related.all()] == ["flash-attention"]


def test_a_renamed_or_moved_file_with_the_same_id_keeps_its_row(content):
    content.write_question("ddp", topic="parallelism")
    sync(content)
    original = Question.objects.get(slug="ddp")
    content.move(
        "questions/parallelism/ddp.md", "questions/parallelism/data-parallel/distributed-data-parallel.md"
    )

    assert sync(content)["Questions"] == counts(updated=1)
    moved = Question.objects.get(slug="ddp")
    assert moved.pk == original.pk
    assert moved.retired_at is None
    assert moved.source_path == "questions/parallelism/data-parallel/distributed-data-parallel.md"


def test_a_question_moved_to_another_topic_keeps_its_row(content):
    content.write_question("ddp", topic="attention")
    sync(content)
    original_pk = Question.objects.get(slug="ddp").pk
    content.remove("questions/attention/ddp.md")
    content.write_question("ddp", topic="parallelism")

    sync(content)
    question = Question.objects.get(slug="ddp")
    assert (question.pk, question.topic.slug) == (original_pk, "parallelism")


def test_a_removed_file_retires_its_question_and_keeps_the_row(content):
    content.write_question("sdpa")
    content.write_question("flash-attention", related=["sdpa"])
    sync(content)
    content.remove("questions/attention/sdpa.md")
    content.write_question("flash-attention")

    assert sync(content)["Questions"] == counts(updated=1, retired=1)
    retired = Question.objects.get(slug="sdpa")
    assert retired.retired_at is not None
    assert not Question.objects.live().filter(slug="sdpa").exists()
    assert sync(content)["Questions"] == counts(unchanged=1)


def test_a_file_that_comes_back_restores_its_question(content):
    content.write_question("sdpa")
    sync(content)
    original_pk = Question.objects.get(slug="sdpa").pk
    content.remove("questions/attention/sdpa.md")
    sync(content)
    content.write_question("sdpa", title="SDPA, rewritten")

    assert sync(content)["Questions"] == counts(restored=1)
    question = Question.objects.get(slug="sdpa")
    assert (question.pk, question.retired_at, question.title) == (original_pk, None, "SDPA, rewritten")


def test_a_topic_removed_from_topics_yaml_is_retired_and_can_come_back(content):
    content.write_question("sdpa")
    sync(content)
    content.write_topics([{"id": "attention", "name": "Attention", "description": "Attention and its cost."}])

    assert sync(content)["Topics"] == counts(unchanged=1, retired=1)
    assert list(Topic.objects.live().values_list("slug", flat=True)) == ["attention"]

    content.write_topics(
        [
            {"id": "attention", "name": "Attention", "description": "Attention and its cost."},
            {"id": "parallelism", "name": "Parallelism", "description": "Back again."},
        ]
    )
    assert sync(content)["Topics"] == counts(unchanged=1, restored=1)
    assert Topic.objects.get(slug="parallelism").name == "Parallelism"


def test_questions_written_in_the_admin_are_never_touched(content):
    topic = TopicFactory(slug="my-topic", origin=Origin.ADMIN)
    own = QuestionFactory(slug="my-own-question", topic=topic, title="Mine", origin=Origin.ADMIN)
    content.write_question("sdpa")
    sync(content)

    assert sync(content) == {"Topics": counts(unchanged=2), "Questions": counts(unchanged=1), "Drills": counts()}
    own.refresh_from_db()
    topic.refresh_from_db()
    assert (own.title, own.origin, own.retired_at) == ("Mine", Origin.ADMIN, None)
    assert (topic.origin, topic.retired_at) == (Origin.ADMIN, None)


def test_a_file_may_not_take_the_id_of_a_question_written_in_the_admin(content):
    QuestionFactory(slug="sdpa", origin=Origin.ADMIN, title="Written in the admin")
    content.write_question("sdpa")

    with pytest.raises(ContentError) as error:
        sync(content)
    assert (
        "questions/attention/sdpa.md: id: 'sdpa' is already the id of a question written in the admin"
        in str(error.value)
    )
    assert Question.objects.get(slug="sdpa").title == "Written in the admin"


def test_topics_yaml_may_not_take_the_id_of_a_topic_written_in_the_admin(content):
    TopicFactory(slug="parallelism", name="Mine", origin=Origin.ADMIN)
    with pytest.raises(ContentError) as error:
        sync(content)
    assert "questions/topics.yaml: topics[2].id: 'parallelism' is a topic written in the admin" in str(
        error.value
    )
    assert Topic.objects.get(slug="parallelism").name == "Mine"
    assert not Topic.objects.filter(slug="attention").exists()


def test_a_topic_still_used_by_admin_questions_cannot_be_removed(content):
    content.write_question("sdpa")
    sync(content)
    QuestionFactory(slug="mine", topic=Topic.objects.get(slug="parallelism"), origin=Origin.ADMIN)
    content.write_topics([{"id": "attention", "name": "Attention", "description": "Attention and its cost."}])

    with pytest.raises(ContentError) as error:
        sync(content)
    assert "topic 'parallelism' was removed, but questions written in the admin still use it: mine" in str(
        error.value
    )
    assert Topic.objects.get(slug="parallelism").retired_at is None


def test_a_failed_sync_leaves_the_database_unchanged(content):
    content.write_question("sdpa")
    content.write_question("flash-attention", related=["sdpa"])
    sync(content)
    before = snapshot()
    content.write_question("sdpa", title="Changed title")
    content.write_question("new-question")
    content.write_question("flash-attention", related=["no-such-question"])

    with pytest.raises(ContentError):
        sync(content)
    assert snapshot() == before


def test_a_clash_found_only_while_writing_rolls_back_what_was_already_written(content):
    content.write_question("sdpa")
    sync(content)
    QuestionFactory(slug="taken", origin=Origin.ADMIN)
    before = snapshot()
    content.write_question("sdpa", title="Changed title")
    content.write_topics([*DEFAULT_TOPICS, {"id": "new-topic", "name": "New", "description": "Fresh."}])
    content.write_question("taken")

    with pytest.raises(ContentError):
        sync(content)
    assert snapshot() == before
    assert not Topic.objects.filter(slug="new-topic").exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="search vectors exist on PostgreSQL only")
def test_the_sync_fills_the_search_vector_with_title_prompt_answer_and_key_points(content):
    content.write_question(
        "fsdp-zero",
        topic="parallelism",
        title="FSDP and ZeRO",
        prompt="How is state sharded?",
        answer="Stages one to three.",
    )
    sync(content)
    vector = Question.objects.values_list("search_vector", flat=True).get(slug="fsdp-zero")
    for lexeme in ("'zero'", "'shard'", "'stage'", "'phrase'"):
        assert lexeme in vector
