"""Problem sets as git holds them: one Markdown file with YAML front matter per set, under sets/.

The format is described in problems/README.md. Parsing touches no database: whether each item names a
question or problem that exists is for the sync to check, against what it has just loaded.
"""

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interview.content.errors import ContentError, ContentProblem
from interview.content.questions import (
    DIFFICULTIES, SLUG_PATTERN, TITLE_MAX_LENGTH, parse_files, repeated_id_problems, split_front_matter,
)

SETS_FOLDER = "sets"
# The kinds of thing an item can name, as an item writes them (`- question: <id>`).
ITEM_KINDS = ("question", "problem", "drill")
REQUIRED_FIELDS = ("id", "title", "difficulty", "items")
OPTIONAL_FIELDS = ("minutes", "published")
MINUTES_RANGE = (5, 240)


@dataclass(frozen=True)
class SetItemEntry:
    """One item of a set as its file names it: the kind (one of ITEM_KINDS) and the id of the thing."""

    kind: str
    slug: str

    def __str__(self) -> str:
        return f"{self.kind} {self.slug!r}"


@dataclass(frozen=True)
class ProblemSetFile:
    """One set as its file states it; `path` is relative to the content folder."""

    path: str
    slug: str
    title: str
    difficulty: str
    minutes: int | None
    published: bool
    items: tuple[SetItemEntry, ...]
    description_markdown: str


def _item_problems(items: Any) -> list[tuple[str, str]]:
    if not isinstance(items, list) or not items:
        return [("items", f"must be a non-empty list, each item one of {', '.join(ITEM_KINDS)}: <id>")]
    problems = []
    for index, item in enumerate(items, start=1):
        field = f"items[{index}]"
        if not isinstance(item, dict) or len(item) != 1:
            problems.append((field, f"must be one `kind: id` pair, the kind one of {', '.join(ITEM_KINDS)}"))
            continue
        [(kind, slug)] = item.items()
        if kind not in ITEM_KINDS:
            problems.append((field, f"{kind!r} is not a kind of item ({', '.join(ITEM_KINDS)})"))
        elif not isinstance(slug, str) or not SLUG_PATTERN.match(slug):
            problems.append((field, f"{slug!r} is not an id (lowercase words joined by '-')"))
    if not problems:
        repeated = [f"{kind} {slug!r}" for (kind, slug), n in Counter(_pairs(items)).items() if n > 1]
        problems += [("items", f"{entry} is listed twice: each item appears once") for entry in repeated]
    return problems


def _pairs(items: list[dict]) -> list[tuple[str, str]]:
    return [next(iter(item.items())) for item in items]


def _field_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    problems = [(name, "missing") for name in REQUIRED_FIELDS if name not in data]
    unknown = set(data) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS)
    problems += [(str(name), "unknown field") for name in sorted(map(str, unknown))]
    for name in ("id", "title", "difficulty"):
        if name in data and not (isinstance(data[name], str) and data[name].strip()):
            problems.append((name, "must be a non-empty string"))
    if problems:
        return problems
    if not SLUG_PATTERN.match(data["id"]):
        problems.append(("id", f"{data['id']!r} is not lowercase words joined by '-'"))
    if "\n" in data["title"].strip() or len(data["title"]) > TITLE_MAX_LENGTH:
        problems.append(("title", f"must be one line of at most {TITLE_MAX_LENGTH} characters"))
    if data["difficulty"] not in DIFFICULTIES:
        problems.append(("difficulty", f"{data['difficulty']!r} is not one of {', '.join(DIFFICULTIES)}"))
    low, high = MINUTES_RANGE
    minutes = data.get("minutes")
    if minutes is not None and (type(minutes) is not int or not low <= minutes <= high):
        problems.append(("minutes", f"must be a whole number of minutes from {low} to {high}"))
    if type(data.get("published", True)) is not bool:
        problems.append(("published", "must be true or false"))
    return problems + _item_problems(data["items"])


def parse_problem_set_file(*, path: str, text: str) -> ProblemSetFile:
    """Parse and validate one set file; raise ContentError naming the file and each faulty field."""
    data, body = split_front_matter(text, path)
    problems = _field_problems(data)
    if problems:
        raise ContentError([ContentProblem(path, field, message) for field, message in problems])
    return ProblemSetFile(
        path=path,
        slug=data["id"],
        title=data["title"].strip(),
        difficulty=data["difficulty"],
        minutes=data.get("minutes"),
        published=data.get("published", True),
        items=tuple(SetItemEntry(kind, slug) for kind, slug in _pairs(data["items"])),
        description_markdown=body.strip() + "\n" if body.strip() else "",
    )


def load_problem_sets(content_dir: Path) -> tuple[ProblemSetFile, ...]:
    """Read and validate every set file under sets/ (none is fine); raise ContentError listing every problem."""
    sets, problems = parse_files(
        content_dir,
        sorted((content_dir / SETS_FOLDER).glob("**/*.md")),
        lambda path, text: parse_problem_set_file(path=path, text=text),
    )
    problems += repeated_id_problems(sets)
    if problems:
        raise ContentError(problems)
    return tuple(sets)
