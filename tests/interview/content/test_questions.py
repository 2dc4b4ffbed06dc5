"""Parsing and validating question files: plain functions, no database."""

import pytest

from interview.content.errors import ContentError
from interview.content.questions import (
    KeyPoint,
    load_question_bank,
    load_topics,
    parse_question_file,
    reflow_paragraphs,
)

TOPICS = {"attention", "parallelism"}
SOURCES = {"000_seed.txt"}


def parse(text: str, path: str = "questions/attention/q.md"):
    return parse_question_file(path=path, text=text, topic_ids=TOPICS, sources=SOURCES)


def problems_of(error: pytest.ExceptionInfo) -> list[tuple[str, str]]:
    return [(problem.path, problem.field) for problem in error.value.problems]


def test_a_valid_file_parses_into_every_field(content):
    question = parse(
        content.question_text(
            "flash-attention",
            title="FlashAttention",
            difficulty="hard",
            prompt="How does it work\nwithout the T x T matrix?\n",
            related=["sdpa"],
            answer="Tiles.\n\n```python\nx = 1\n```\n",
        )
    )
    assert question.slug == "flash-attention"
    assert question.title == "FlashAttention"
    assert question.topic == "attention"
    assert question.difficulty == "hard"
    assert question.source == "000_seed.txt"
    assert question.prompt == "How does it work without the T x T matrix?"
    assert question.key_points[0] == KeyPoint(
        "flash-attention point 1", ("flash-attention phrase 1a", "flash-attention phrase 1b")
    )
    assert len(question.key_points) == 3
    assert question.related == ("sdpa",)
    assert question.answer_markdown == "Tiles.\n\n```python\nx = 1\n```\n"
    assert question.path == "questions/attention/q.md"


def test_the_prompt_is_reflowed_but_keeps_its_paragraphs():
    assert reflow_paragraphs("One\nline.\n\n  Second\n  paragraph.\n") == "One line.\n\nSecond paragraph."


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"topic": "cooking"}, "topic"),
        ({"difficulty": "brutal"}, "difficulty"),
        ({"source": "nowhere.txt"}, "source"),
        ({"id": "Not A Slug"}, "id"),
        ({"title": ""}, "title"),
        ({"prompt": "   "}, "prompt"),
        ({"key_points": None}, "key_points"),
        ({"title": None}, "title"),
        ({"related": "sdpa"}, "related"),
        ({"related": ["q-self"]}, "related"),
        ({"keypoints": []}, "keypoints"),
    ],
)
def test_each_invalid_field_is_named_with_the_file(content, fields, field):
    with pytest.raises(ContentError) as error:
        parse(content.question_text("q-self", **fields))
    assert ("questions/attention/q.md", field) in problems_of(error)
    assert f"questions/attention/q.md: {field}:" in str(error.value)


@pytest.mark.parametrize(
    ("key_points", "field", "message"),
    [
        ([{"text": "a", "phrasings": ["x", "y"]}] * 2, "key_points", "needs 3 to 6 points, found 2"),
        ([{"text": "a", "phrasings": ["x", "y"]}] * 7, "key_points", "needs 3 to 6 points, found 7"),
        (
            [{"text": "a", "phrasings": ["x"]}] + [{"text": "b", "phrasings": ["x", "y"]}] * 2,
            "key_points[1].phrasings",
            "needs 2 to 6",
        ),
        ([{"text": "", "phrasings": ["x", "y"]}] * 3, "key_points[1].text", "missing or empty"),
        ([{"text": "a", "phrasings": ["x", "X"]}] * 3, "key_points[1].phrasings", "listed twice"),
        ([{"text": "a", "phrasings": ["x", "y"], "weight": 2}] * 3, "key_points[1]", "unknown field"),
        (["just a string"] * 3, "key_points[1]", "must be a mapping"),
    ],
)
def test_key_points_must_be_three_to_six_each_with_two_to_six_phrasings(content, key_points, field, message):
    with pytest.raises(ContentError) as error:
        parse(content.question_text("q", key_points=key_points))
    matching = [p for p in error.value.problems if p.field == field]
    assert matching and message in matching[0].message


def test_an_empty_model_answer_is_refused(content):
    with pytest.raises(ContentError) as error:
        parse(content.question_text("q", answer="\n  \n"))
    assert problems_of(error) == [("questions/attention/q.md", "answer")]


def test_a_file_without_front_matter_is_refused():
    with pytest.raises(ContentError) as error:
        parse("# Just Markdown\n")
    assert problems_of(error) == [("questions/attention/q.md", "front matter")]


def test_invalid_yaml_points_at_the_line_of_the_file():
    with pytest.raises(ContentError) as error:
        parse("---\nid: q\ntitle: [unclosed\n---\nAnswer.\n")
    problem = error.value.problems[0]
    assert problem.field == "front matter"
    assert problem.line in (3, 4)
    assert str(problem).startswith(f"questions/attention/q.md:{problem.line}: front matter: invalid YAML")


def test_a_field_given_twice_is_refused_rather_than_silently_overwritten(content):
    text = content.question_text("q").replace("title: Title of q\n", "title: Title of q\ntitle: Another\n")
    with pytest.raises(ContentError) as error:
        parse(text)
    assert "duplicate key 'title'" in str(error.value)


def test_the_bank_loads_every_question_under_its_topic_folder_at_any_depth(content):
    content.write_question("flash-attention")
    content.write_question("ddp", topic="parallelism", path="questions/parallelism/data/ddp.md")
    content.write_raw("questions/README.md", "Notes for authors, not a question.\n")
    bank = load_question_bank(content.root)
    assert [t.slug for t in bank.topics] == ["attention", "parallelism"]
    assert sorted(q.slug for q in bank.questions) == ["ddp", "flash-attention"]
    assert {q.path for q in bank.questions} == {
        "questions/attention/flash-attention.md",
        "questions/parallelism/data/ddp.md",
    }


def test_the_same_id_in_two_files_names_both_files(content):
    content.write_question("ddp", topic="parallelism")
    content.write_question("ddp", topic="parallelism", path="questions/parallelism/copy-of-ddp.md")
    with pytest.raises(ContentError) as error:
        load_question_bank(content.root)
    assert sorted(problems_of(error)) == [
        ("questions/parallelism/copy-of-ddp.md", "id"),
        ("questions/parallelism/ddp.md", "id"),
    ]
    assert "is also the id of questions/parallelism/ddp.md" in str(error.value)


def test_a_related_id_that_names_no_question_is_refused(content):
    content.write_question("sdpa", related=["flash-attention", "no-such-question"])
    content.write_question("flash-attention")
    with pytest.raises(ContentError) as error:
        load_question_bank(content.root)
    assert problems_of(error) == [("questions/attention/sdpa.md", "related")]
    assert "no-such-question" in str(error.value)


def test_a_question_in_another_topics_folder_is_refused(content):
    content.write_question("ddp", topic="parallelism", path="questions/attention/ddp.md")
    with pytest.raises(ContentError) as error:
        load_question_bank(content.root)
    assert problems_of(error) == [("questions/attention/ddp.md", "topic")]


def test_every_problem_in_every_file_is_reported_at_once(content):
    content.write_question("one", difficulty="brutal")
    content.write_question("two", topic="cooking", path="questions/attention/two.md")
    with pytest.raises(ContentError) as error:
        load_question_bank(content.root)
    assert ("questions/attention/one.md", "difficulty") in problems_of(error)
    assert ("questions/attention/two.md", "topic") in problems_of(error)
    assert str(error.value).startswith("2 problems in the content:")


def test_a_file_that_is_not_utf8_is_refused(content):
    path = content.write_question("q")
    path.write_bytes(path.read_bytes() + b"\xff\xfe")
    with pytest.raises(ContentError) as error:
        load_question_bank(content.root)
    assert "not UTF-8" in str(error.value)


def test_topics_keep_the_order_of_topics_yaml(content):
    content.write_topics(
        [
            {"id": "b-topic", "name": "B", "description": "Second letter."},
            {"id": "a-topic", "name": "A", "description": "First letter."},
        ]
    )
    topics = load_topics(content.root)
    assert [(t.slug, t.position) for t in topics] == [("b-topic", 1), ("a-topic", 2)]


@pytest.mark.parametrize(
    ("topics", "field"),
    [
        ([{"id": "a", "name": "A"}], "topics[1]"),
        (
            [{"id": "a", "name": "A", "description": "x"}, {"id": "a", "name": "B", "description": "y"}],
            "topics[2].id",
        ),
        ([{"id": "Bad Id", "name": "A", "description": "x"}], "topics[1].id"),
    ],
)
def test_invalid_topics_name_the_entry(content, topics, field):
    content.write_topics(topics)
    with pytest.raises(ContentError) as error:
        load_topics(content.root)
    assert problems_of(error) == [("questions/topics.yaml", field)]
