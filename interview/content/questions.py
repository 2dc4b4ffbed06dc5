"""The question bank as git holds it: topics.yaml plus one Markdown file with YAML front matter per question.

The format is described in problems/README.md. Everything here is plain Python: parsing a file touches no
database, so the bank can be validated anywhere and tests can call these functions directly.
"""

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable, TypeVar

import yaml

from interview.content.errors import ContentError, ContentProblem

DIFFICULTIES = ("easy", "medium", "hard")
SLUG_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
TITLE_MAX_LENGTH = 120
KEY_POINTS_RANGE = (3, 6)
PHRASINGS_RANGE = (2, 6)

REQUIRED_FIELDS = ("id", "title", "topic", "difficulty", "source", "prompt", "key_points")
OPTIONAL_FIELDS = ("related",)
TOPIC_FIELDS = ("id", "name", "description")

T = TypeVar("T")

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(?P<yaml>.*?)^---[ \t]*\r?$\n?", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class TopicEntry:
    slug: str
    name: str
    description: str
    position: int


@dataclass(frozen=True)
class KeyPoint:
    text: str
    phrasings: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"text": self.text, "phrasings": list(self.phrasings)}


@dataclass(frozen=True)
class QuestionFile:
    """One question as its file states it; `path` is relative to the content folder."""

    path: str
    slug: str
    title: str
    topic: str
    difficulty: str
    source: str
    prompt: str
    key_points: tuple[KeyPoint, ...]
    related: tuple[str, ...]
    answer_markdown: str


@dataclass(frozen=True)
class QuestionBank:
    topics: tuple[TopicEntry, ...]
    questions: tuple[QuestionFile, ...]


class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe loader that refuses a mapping with the same key twice, which plain YAML silently collapses."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _load_yaml(text: str, path: str, first_line: int) -> Any:
    """Parse YAML, turning a syntax error into a ContentProblem that points at the file's own line."""
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = first_line + mark.line if mark is not None else None
        reason = getattr(error, "problem", None) or str(error)
        raise ContentError([ContentProblem(path, "front matter", f"invalid YAML: {reason}", line)]) from None


def split_front_matter(text: str, path: str) -> tuple[dict[str, Any], str]:
    """The front matter (a mapping) and the Markdown body of a question file."""
    match = _FRONT_MATTER.match(text.lstrip("\ufeff"))
    if not match:
        raise ContentError(
            [ContentProblem(path, "front matter", "the file must start with '---', the YAML, then '---'", 1)]
        )
    data = _load_yaml(match["yaml"], path, first_line=2)
    if not isinstance(data, dict):
        raise ContentError([ContentProblem(path, "front matter", "must be a YAML mapping of fields", 2)])
    return data, text.lstrip("\ufeff")[match.end() :]


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def key_point_problems(value: Any) -> list[tuple[str, str]]:
    """(field, message) for each way `value` falls short of a valid list of key points; empty when valid."""
    low, high = KEY_POINTS_RANGE
    if not isinstance(value, list):
        return [("key_points", "must be a list of points, each with `text` and `phrasings`")]
    problems = []
    if not low <= len(value) <= high:
        problems.append(("key_points", f"needs {low} to {high} points, found {len(value)}"))
    for index, point in enumerate(value, start=1):
        field = f"key_points[{index}]"
        if not isinstance(point, dict):
            problems.append((field, "must be a mapping with `text` and `phrasings`"))
            continue
        unknown = set(point) - {"text", "phrasings"}
        if unknown:
            problems.append((field, f"unknown field(s): {', '.join(sorted(map(str, unknown)))}"))
        if not _is_text(point.get("text")):
            problems.append((f"{field}.text", "missing or empty"))
        problems.extend(_phrasing_problems(point.get("phrasings"), f"{field}.phrasings"))
    return problems


def _phrasing_problems(phrasings: Any, field: str) -> list[tuple[str, str]]:
    low, high = PHRASINGS_RANGE
    if not isinstance(phrasings, list):
        return [(field, "must be a list of short phrases")]
    problems = []
    if not low <= len(phrasings) <= high:
        problems.append((field, f"needs {low} to {high} phrasings, found {len(phrasings)}"))
    if not all(_is_text(phrasing) for phrasing in phrasings):
        problems.append((field, "every phrasing must be a non-empty string"))
    elif len({p.strip().lower() for p in phrasings}) != len(phrasings):
        problems.append((field, "a phrasing is listed twice"))
    return problems


def _field_problems(data: dict[str, Any], topic_ids: set[str], sources: set[str]) -> list[tuple[str, str]]:
    problems = [(name, "missing") for name in REQUIRED_FIELDS if name not in data]
    unknown = set(data) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS)
    problems += [(str(name), "unknown field") for name in sorted(map(str, unknown))]
    for name in ("id", "title", "topic", "difficulty", "source", "prompt"):
        if name in data and not _is_text(data[name]):
            problems.append((name, "must be a non-empty string"))
    if problems:
        return problems + (key_point_problems(data["key_points"]) if "key_points" in data else [])

    if not SLUG_PATTERN.match(data["id"]):
        problems.append(("id", f"{data['id']!r} is not lowercase words joined by '-'"))
    if "\n" in data["title"].strip() or len(data["title"]) > TITLE_MAX_LENGTH:
        problems.append(("title", f"must be one line of at most {TITLE_MAX_LENGTH} characters"))
    if data["topic"] not in topic_ids:
        problems.append(
            ("topic", f"unknown topic {data['topic']!r} (topics.yaml has {', '.join(sorted(topic_ids))})")
        )
    if data["difficulty"] not in DIFFICULTIES:
        problems.append(("difficulty", f"{data['difficulty']!r} is not one of {', '.join(DIFFICULTIES)}"))
    if data["source"] not in sources:
        problems.append(("source", f"{data['source']!r} is not a document in seeds/"))
    problems += key_point_problems(data["key_points"])
    problems += _related_problems(data.get("related", []), data["id"])
    return problems


def _related_problems(related: Any, own_id: str) -> list[tuple[str, str]]:
    if not isinstance(related, list) or not all(isinstance(item, str) for item in related):
        return [("related", "must be a list of question ids")]
    if own_id in related:
        return [("related", "a question cannot be related to itself")]
    if len(set(related)) != len(related):
        return [("related", "an id is listed twice")]
    return []


def reflow_paragraphs(text: str) -> str:
    """Join the lines of each paragraph with spaces; paragraphs stay apart, separated by one blank line.

    Prompts are prose that authors wrap at any width in YAML block scalars; the page reflows them. A fenced
    code block (a listing the question asks about) is kept as it is written.
    """
    pieces = re.split(r"(^```\w*\n.*?^```[ \t]*$)", text.strip(), flags=re.MULTILINE | re.DOTALL)
    reflowed = []
    for index, piece in enumerate(pieces):
        if index % 2:
            reflowed.append(piece)
        elif piece.strip():
            paragraphs = re.split(r"\n\s*\n", piece.strip())
            reflowed += [" ".join(line.strip() for line in paragraph.splitlines()) for paragraph in paragraphs]
    return "\n\n".join(reflowed)


def parse_question_file(*, path: str, text: str, topic_ids: set[str], sources: set[str]) -> QuestionFile:
    """Parse and validate one question file; raise ContentError naming the file and each faulty field.

    `related` ids are checked against the rest of the bank by load_question_bank, not here.
    """
    data, body = split_front_matter(text, path)
    problems = _field_problems(data, topic_ids, sources)
    if not body.strip():
        problems.append(("answer", "the model answer (the Markdown after the front matter) is empty"))
    if problems:
        raise ContentError([ContentProblem(path, field, message) for field, message in problems])
    return QuestionFile(
        path=path,
        slug=data["id"],
        title=data["title"].strip(),
        topic=data["topic"],
        difficulty=data["difficulty"],
        source=data["source"],
        prompt=reflow_paragraphs(data["prompt"]),
        key_points=tuple(
            KeyPoint(text=p["text"].strip(), phrasings=tuple(s.strip() for s in p["phrasings"]))
            for p in data["key_points"]
        ),
        related=tuple(data.get("related", [])),
        answer_markdown=body.strip() + "\n",
    )


def load_topics(content_dir: Path) -> tuple[TopicEntry, ...]:
    """The topics of questions/topics.yaml, in display order."""
    path = "questions/topics.yaml"
    try:
        data = _load_yaml((content_dir / path).read_text(encoding="utf-8"), path, first_line=1)
    except FileNotFoundError:
        raise ContentError([ContentProblem(path, "", "missing: the bank needs its list of topics")]) from None
    if not isinstance(data, list) or not data:
        raise ContentError([ContentProblem(path, "", "must be a non-empty list of topics")])
    problems, topics, seen = [], [], set()
    for position, entry in enumerate(data, start=1):
        field = f"topics[{position}]"
        if not isinstance(entry, dict) or set(entry) != set(TOPIC_FIELDS):
            problems.append(
                ContentProblem(path, field, f"needs exactly the fields {', '.join(TOPIC_FIELDS)}")
            )
            continue
        if not all(_is_text(entry[name]) for name in TOPIC_FIELDS):
            problems.append(ContentProblem(path, field, "every field must be a non-empty string"))
        elif not SLUG_PATTERN.match(entry["id"]):
            problems.append(
                ContentProblem(path, f"{field}.id", f"{entry['id']!r} is not lowercase words joined by '-'")
            )
        elif entry["id"] in seen:
            problems.append(ContentProblem(path, f"{field}.id", f"{entry['id']!r} is listed twice"))
        else:
            seen.add(entry["id"])
            topics.append(
                TopicEntry(entry["id"], entry["name"].strip(), entry["description"].strip(), position)
            )
    if problems:
        raise ContentError(problems)
    return tuple(topics)


def question_paths(content_dir: Path) -> list[Path]:
    """Every question file: the Markdown under questions/<folder>/, at any depth, sorted."""
    return sorted(path for path in (content_dir / "questions").glob("*/**/*.md") if path.is_file())


def load_question_bank(content_dir: Path) -> QuestionBank:
    """Read and validate the whole bank; raise ContentError listing every problem in every file."""
    topics = load_topics(content_dir)
    topic_ids = {topic.slug for topic in topics}
    seeds = content_dir / "seeds"
    sources = {path.name for path in seeds.glob("*.txt")} if seeds.is_dir() else set()

    questions, problems = parse_files(
        content_dir,
        question_paths(content_dir),
        lambda path, text: parse_question_file(path=path, text=text, topic_ids=topic_ids, sources=sources),
    )
    for question in questions:
        folder = PurePosixPath(question.path).parts[1]
        if folder != question.topic:
            problems.append(
                ContentProblem(
                    question.path, "topic", f"{question.topic!r} does not match its folder questions/{folder}/"
                )
            )

    problems += _bank_problems(questions)
    if problems:
        raise ContentError(problems)
    return QuestionBank(topics=topics, questions=tuple(questions))


def parse_files(
    content_dir: Path, file_paths: list[Path], parse: Callable[[str, str], T]
) -> tuple[list[T], list[ContentProblem]]:
    """Each file parsed by `parse(path, text)` (path relative to the content folder), and every problem met."""
    parsed: list[T] = []
    problems: list[ContentProblem] = []
    for file_path in file_paths:
        path = file_path.relative_to(content_dir).as_posix()
        try:
            parsed.append(parse(path, file_path.read_text(encoding="utf-8")))
        except ContentError as error:
            problems.extend(error.problems)
        except UnicodeDecodeError as error:
            problems.append(ContentProblem(path, "", f"not UTF-8 text ({error.reason} at byte {error.start})"))
    return parsed, problems


def repeated_id_problems(files: list) -> list[ContentProblem]:
    """A problem for each file whose `slug` another file of `files` also uses (each has `slug` and `path`)."""
    paths_by_slug: dict[str, list[str]] = defaultdict(list)
    for file in files:
        paths_by_slug[file.slug].append(file.path)
    return [
        ContentProblem(path, "id", f"{slug!r} is also the id of {', '.join(p for p in paths if p != path)}")
        for slug, paths in paths_by_slug.items()
        if len(paths) > 1
        for path in paths
    ]


def _bank_problems(questions: list[QuestionFile]) -> list[ContentProblem]:
    """Faults only visible across files: an id used twice, or a related id that names no question."""
    problems = repeated_id_problems(questions)
    known = {question.slug for question in questions}
    for question in questions:
        unknown = [slug for slug in question.related if slug not in known]
        if unknown:
            problems.append(
                ContentProblem(question.path, "related", f"no question has the id {', '.join(unknown)}")
            )
    return problems
