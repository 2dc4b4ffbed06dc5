"""Loading the problem sets under sets/ into the database, with the bank's rules; see the sync_content command.

It runs after the questions and problems are synced, in the same transaction, so an item naming a question
or problem that is not live (unknown, or retired) stops the whole sync with nothing changed. Sets written in
the admin are never touched; a set whose file is gone is retired (hidden, the interviews sat from it kept).
"""

from pathlib import Path

from django.db import transaction
from django.utils import timezone

from interview.content.errors import ContentError, ContentProblem
from interview.content.problem_sets import ProblemSetFile, SetItemEntry, load_problem_sets
from interview.models import Origin, ProblemSet, ProblemSetItem
# The bank's own lock: a set sync in the same transaction as the bank's takes it again at no cost.
from interview.services.content_sync import SyncReport, _serialise_concurrent_syncs


@transaction.atomic
def sync_problem_sets(*, content_dir: Path) -> SyncReport:
    """Make the file-origin problem sets match the set files under `content_dir`; raise ContentError,
    with nothing written, when a file is invalid, names an item that is not live, or takes an admin set's id.
    """
    files = load_problem_sets(content_dir)
    _serialise_concurrent_syncs()
    targets = _live_targets(files)
    existing = {problem_set.slug: problem_set for problem_set in ProblemSet.objects.all()}
    problems = [
        ContentProblem(f.path, "id", f"{f.slug!r} is already the id of a set written in the admin")
        for f in files
        if f.slug in existing and existing[f.slug].origin != Origin.FILE
    ]
    problems += [
        ContentProblem(f.path, f"items[{index}]", f"no live {entry} (is its file in git, and synced?)")
        for f in files
        for index, entry in enumerate(f.items, start=1)
        if entry not in targets
    ]
    if problems:
        raise ContentError(problems)

    report = SyncReport("Problem sets")
    for set_file in files:
        _sync_one(set_file, existing.get(set_file.slug), targets, report)
    in_files = {f.slug for f in files}
    report.retired += (
        ProblemSet.objects.filter(origin=Origin.FILE, retired_at__isnull=True)
        .exclude(slug__in=in_files)
        .update(retired_at=timezone.now())
    )
    return report


def _live_targets(files: tuple[ProblemSetFile, ...]) -> dict[SetItemEntry, int]:
    """The primary key of every live question, problem, ... the files name, keyed by how they name it."""
    wanted: dict[str, set[str]] = {}
    for set_file in files:
        for entry in set_file.items:
            wanted.setdefault(entry.kind, set()).add(entry.slug)
    targets = {}
    for kind, slugs in wanted.items():
        model = ProblemSetItem._meta.get_field(kind).related_model
        for pk, slug in model.objects.live().filter(slug__in=slugs).values_list("pk", "slug"):
            targets[SetItemEntry(kind, slug)] = pk
    return targets


def _sync_one(
    set_file: ProblemSetFile, problem_set: ProblemSet | None, targets: dict[SetItemEntry, int], report: SyncReport
) -> None:
    values = {
        "title": set_file.title,
        "description": set_file.description_markdown,
        "difficulty": set_file.difficulty,
        "time_budget_minutes": set_file.minutes,
        "is_published": set_file.published,
        "source_path": set_file.path,
        "retired_at": None,
    }
    if problem_set is None:
        problem_set = ProblemSet.objects.create(slug=set_file.slug, origin=Origin.FILE, **values)
        report.created += 1
        _replace_items(problem_set, set_file, targets)
        return
    restored = problem_set.retired_at is not None
    changed = [name for name, value in values.items() if getattr(problem_set, name) != value]
    for name in changed:
        setattr(problem_set, name, values[name])
    items_changed = _item_keys(problem_set) != [(entry.kind, targets[entry]) for entry in set_file.items]
    if items_changed:
        _replace_items(problem_set, set_file, targets)
    if changed or items_changed:
        problem_set.save(update_fields=[*changed, "updated_at"])
    if restored:
        report.restored += 1
    elif changed or items_changed:
        report.updated += 1
    else:
        report.unchanged += 1


def _item_keys(problem_set: ProblemSet) -> list[tuple[str, int]]:
    """The set's items in order, each as (kind, primary key of what it names)."""
    return [
        (item.kind, getattr(item, f"{item.kind}_id"))
        for item in problem_set.items.order_by("position", "id")
    ]


def _replace_items(problem_set: ProblemSet, set_file: ProblemSetFile, targets: dict[SetItemEntry, int]) -> None:
    # Items carry nothing of their own beyond what they name and where: interviews and practice sessions
    # record the questions and problems themselves, so rewriting the list loses nothing.
    problem_set.items.all().delete()
    ProblemSetItem.objects.bulk_create(
        ProblemSetItem(problem_set=problem_set, position=position, **{f"{entry.kind}_id": targets[entry]})
        for position, entry in enumerate(set_file.items, start=1)
    )
