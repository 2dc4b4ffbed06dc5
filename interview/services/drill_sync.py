"""Writing the drills git holds into the database: part of the bank's sync (interview.services.content_sync).

Drills are matched by their id (the slug). A drill whose file disappears is retired, never deleted, so the
attempts users made of it, and the interviews that asked it, stay valid.
"""

from django.utils import timezone

from interview.content.drills import DrillFile
from interview.models import Drill, Question, Topic


def sync_drill_rows(*, drills: tuple[DrillFile, ...], topics: dict[str, Topic]) -> dict[str, int]:
    """Make the drills in the database match drills (already validated); the counts of each kind of change."""
    counts = dict.fromkeys(("created", "updated", "unchanged", "retired", "restored"), 0)
    existing = {drill.slug: drill for drill in Drill.objects.prefetch_related("related")}
    questions = {question.slug: question for question in Question.objects.all()}
    for drill_file in drills:
        values = {"title": drill_file.title, "topic": topics[drill_file.topic], "difficulty": drill_file.difficulty,
                  "spec": drill_file.spec.as_json(), "citations": list(drill_file.citations),
                  "source_path": drill_file.path}
        related = {questions[slug] for slug in drill_file.related}
        drill = existing.get(drill_file.slug)
        if drill is None:
            drill = Drill.objects.create(slug=drill_file.slug, **values)
            drill.related.set(related)
            counts["created"] += 1
            continue
        changed = [name for name, value in values.items() if getattr(drill, name) != value]
        for name in changed:
            setattr(drill, name, values[name])
        if set(drill.related.all()) != related:
            drill.related.set(related)
            changed.append("updated_at")
        if drill.retired_at is not None:
            drill.retired_at = None
            changed.append("retired_at")
            counts["restored"] += 1
        else:
            counts["updated" if changed else "unchanged"] += 1
        if changed:
            drill.save(update_fields=sorted(set(changed) | {"updated_at"}))
    kept = {drill_file.slug for drill_file in drills}
    counts["retired"] = Drill.objects.filter(retired_at__isnull=True).exclude(slug__in=kept).update(
        retired_at=timezone.now())
    return counts
