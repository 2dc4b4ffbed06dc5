"""Loading the content git holds into the database, idempotently; see the sync_content command.

The whole bank is read and validated before the first write, and the writes share one transaction, so a
sync either applies completely or changes nothing. Rows are matched by their stable id (the slug), never
by file name: moving or renaming a file updates where the row says it came from, nothing else.
"""

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from django.db import connection, transaction
from django.utils import timezone

from interview.content.drills import load_drills
from interview.content.errors import ContentError, ContentProblem
from interview.content.questions import QuestionFile, TopicEntry, load_question_bank
from interview.models import Origin, Problem, Question, Topic
from interview.rendering import render_markdown
from interview.services.drill_sync import sync_drill_rows
from interview.services.questions import question_search_vectors_refresh

if TYPE_CHECKING:
    from interview.judge.engine import Package

TOPICS_FILE = "questions/topics.yaml"
_LEADING_TITLE = re.compile(r"\A\s*#[ \t]+[^\n]*\n")
# The statement's last section; everything from its heading to the next `## ` heading (or the end) is the hints.
_HINTS_SECTION = re.compile(r"^## Hints[ \t]*\n(?P<body>.*?)(?=^## |\Z)", re.MULTILINE | re.DOTALL)
# A top-level list item starts at column 0; its continuation lines are indented.
_HINT_ITEM = re.compile(r"^[-*][ \t]+", re.MULTILINE)
# Any constant works; it only has to be the same for every process that syncs this database.
_SYNC_LOCK_ID = 0x51A7C0DE


@dataclass
class SyncReport:
    """How many rows of one kind a sync created, changed, left alone, retired and brought back."""

    kind: str
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    retired: int = 0
    restored: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.created or self.updated or self.retired or self.restored)

    def __str__(self) -> str:
        return (
            f"{self.kind}: {self.created} created, {self.updated} updated, {self.unchanged} unchanged, "
            f"{self.retired} retired, {self.restored} restored"
        )


@transaction.atomic
def sync_questions(*, content_dir: Path) -> list[SyncReport]:
    """Make the topics, file-origin questions and drills in the database match the bank under `content_dir`.

    Raises ContentError, with nothing written, when a file is invalid or clashes with a row written in
    the admin. Questions and topics written in the admin are never changed.
    """
    bank = load_question_bank(content_dir)
    drills = load_drills(content_dir, topic_ids={topic.slug for topic in bank.topics},
                         question_ids={question.slug for question in bank.questions})
    _serialise_concurrent_syncs()
    topics, topic_report = _sync_topics(bank.topics)
    question_report = _sync_question_rows(bank.questions, topics)
    drill_report = SyncReport("Drills", **sync_drill_rows(drills=drills, topics=topics))
    return [topic_report, question_report, drill_report]


@transaction.atomic
def sync_problems(*, content_dir: Path) -> SyncReport:
    """Make the problems in the database match the packages under `content_dir` (each with a problem.toml).

    A package whose judging files changed gets its new version hash; a removed package retires its problem
    (its submissions stay). Raises ContentError, with nothing written, when a package does not load.
    """
    # The judge engine imports PyTorch; only the sync needs it, not every process that imports this module.
    from interview.judge.engine import load_packages

    packages, broken = load_packages(content_dir)
    if broken:
        raise ContentError([ContentProblem(f"{slug}/problem.toml", "", message) for slug, message in broken])
    _serialise_concurrent_syncs()
    report = SyncReport("Problems")
    existing = {problem.slug: problem for problem in Problem.objects.all()}
    for package in packages:
        values = _problem_values(package)
        problem = existing.get(package.slug)
        if problem is None:
            Problem.objects.create(slug=package.slug, **values)
            report.created += 1
        else:
            _apply(problem, values, report)
    kept = {package.slug for package in packages}
    retired = Problem.objects.live().exclude(slug__in=kept).update(retired_at=timezone.now())
    report.retired += retired
    return report


def _problem_values(package: "Package") -> dict:
    return {
        "title": package.title,
        "difficulty": package.difficulty,
        "tags": package.tags,
        "needs": package.needs,
        "world_size": package.world_size,
        "threads": package.threads,
        "statement_markdown": package.statement_markdown,
        "statement_html": render_markdown(_without_title(_without_hints(package.statement_markdown))),
        "hints_html": [render_markdown(hint) for hint in statement_hints(package.statement_markdown)],
        "starter_code": package.starter_code,
        "explanation_markdown": package.explanation_markdown,
        "explanation_html": render_markdown(package.explanation_markdown),
        "tests": package.tests,
        "limits": package.limits,
        "version": package.version,
    }


def _without_title(statement: str) -> str:
    """The statement without its leading `# Title` line: the problem's page shows the title already."""
    return _LEADING_TITLE.sub("", statement, count=1)


def statement_hints(statement: str) -> list[str]:
    """The Markdown of each item of the statement's `## Hints` list, in order; none without that section."""
    section = _HINTS_SECTION.search(statement)
    if section is None:
        return []
    items = _HINT_ITEM.split(section["body"].strip())
    return [textwrap.dedent(_first_line_and_rest(item)).strip() for item in items if item.strip()]


def _first_line_and_rest(item: str) -> str:
    # The first line lost its bullet and indent; the rest keep theirs, so dedent them apart from it.
    first, _, rest = item.partition("\n")
    return first + "\n" + textwrap.dedent(rest)


def _without_hints(statement: str) -> str:
    """The statement without its `## Hints` section: the page reveals those one at a time."""
    return _HINTS_SECTION.sub("", statement, count=1).rstrip() + "\n"


def _serialise_concurrent_syncs() -> None:
    # Two web containers starting at once both run the sync; without the lock, both would see a question
    # as new and the second insert would fail on the unique slug. SQLite already serialises writers.
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_SYNC_LOCK_ID])


def _sync_topics(entries: tuple[TopicEntry, ...]) -> tuple[dict[str, Topic], SyncReport]:
    report = SyncReport("Topics")
    existing = {topic.slug: topic for topic in Topic.objects.all()}
    problems = []
    for entry in entries:
        topic = existing.get(entry.slug)
        if topic is not None and topic.origin != Origin.FILE:
            problems.append(
                ContentProblem(
                    TOPICS_FILE,
                    f"topics[{entry.position}].id",
                    f"{entry.slug!r} is a topic written in the admin",
                )
            )
            continue
        values = {"name": entry.name, "description": entry.description, "position": entry.position}
        if topic is None:
            existing[entry.slug] = Topic.objects.create(slug=entry.slug, origin=Origin.FILE, **values)
            report.created += 1
        else:
            _apply(topic, values, report)

    kept = {entry.slug for entry in entries}
    for topic in existing.values():
        if topic.origin == Origin.FILE and topic.slug not in kept and topic.retired_at is None:
            problems += _retirement_blockers(topic)
            topic.retired_at = timezone.now()
            topic.save(update_fields=["retired_at"])
            report.retired += 1
    if problems:
        raise ContentError(problems)
    return existing, report


def _retirement_blockers(topic: Topic) -> list[ContentProblem]:
    # Retiring the topic would silently hide questions an admin wrote; they must be moved first.
    stranded = list(
        topic.questions.filter(origin=Origin.ADMIN, retired_at__isnull=True).values_list("slug", flat=True)
    )
    if not stranded:
        return []
    return [
        ContentProblem(
            TOPICS_FILE,
            "topics",
            f"topic {topic.slug!r} was removed, but questions written in the admin still use it: "
            f"{', '.join(stranded)} (move them to another topic first)",
        )
    ]


def _apply(row: Topic | Question | Problem, values: dict, report: SyncReport) -> bool:
    """Give an existing row these values (and bring it back if retired); count it; say if it changed."""
    changed = [name for name, value in values.items() if getattr(row, name) != value]
    for name in changed:
        setattr(row, name, values[name])
    if row.retired_at is not None:
        row.retired_at = None
        changed.append("retired_at")
        report.restored += 1
    elif changed:
        report.updated += 1
    else:
        report.unchanged += 1
        return False
    row.save(update_fields=changed + (["updated_at"] if isinstance(row, Question | Problem) else []))
    return True


def _question_values(question: QuestionFile, topics: dict[str, Topic]) -> dict:
    return {
        "title": question.title,
        "topic": topics[question.topic],
        "difficulty": question.difficulty,
        "source": question.source,
        "prompt": question.prompt,
        "answer_markdown": question.answer_markdown,
        "answer_html": render_markdown(question.answer_markdown),
        "key_points": [point.as_json() for point in question.key_points],
        "source_path": question.path,
    }


def _sync_question_rows(files: tuple[QuestionFile, ...], topics: dict[str, Topic]) -> SyncReport:
    report = SyncReport("Questions")
    existing = {q.slug: q for q in Question.objects.select_related("topic").prefetch_related("related")}
    clashes = [
        ContentProblem(f.path, "id", f"{f.slug!r} is already the id of a question written in the admin")
        for f in files
        if f.slug in existing and existing[f.slug].origin != Origin.FILE
    ]
    if clashes:
        raise ContentError(clashes)

    written = set()
    for question_file in files:
        values = _question_values(question_file, topics)
        question = existing.get(question_file.slug)
        if question is None:
            existing[question_file.slug] = Question.objects.create(
                slug=question_file.slug, origin=Origin.FILE, **values
            )
            report.created += 1
            written.add(question_file.slug)
        elif _apply(question, values, report):
            written.add(question_file.slug)

    for question_file in files:
        if _relate(existing[question_file.slug], [existing[slug] for slug in question_file.related]):
            if question_file.slug not in written:
                report.unchanged -= 1
                report.updated += 1
                written.add(question_file.slug)

    in_files = {f.slug for f in files}
    now = timezone.now()
    for question in existing.values():
        if question.origin == Origin.FILE and question.slug not in in_files and question.retired_at is None:
            question.retired_at = now
            question.save(update_fields=["retired_at", "updated_at"])
            report.retired += 1

    question_search_vectors_refresh(question_ids=[existing[slug].pk for slug in written])
    return report


def _relate(question: Question, related: list[Question]) -> bool:
    """Set the question's related questions to exactly these; say whether that changed anything."""
    if {r.pk for r in question.related.all()} == {r.pk for r in related}:
        return False
    question.related.set(related)
    return True
