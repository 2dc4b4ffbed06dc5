"""Writing the problems' bank topics into the database; see the sync_content command.

It runs after the bank's topics and the problems are synced, in the same transaction, so each id is checked
against the topics this very sync left live: one that topics.yaml no longer lists stops the whole sync with
nothing changed, as an unknown follow-up does.
"""

from pathlib import Path

from django.db import transaction

from interview.content.errors import ContentError, ContentProblem
from interview.content.problem_topics import FIELD, load_problem_topics
from interview.models import Problem, Topic
from interview.services.content_sync import SyncReport, _serialise_concurrent_syncs


@transaction.atomic
def sync_problem_topics(*, content_dir: Path) -> SyncReport:
    """Make each live problem's topics those its problem.toml lists; ContentError, with nothing written, when
    one names no topic, or a topic that is unknown or retired."""
    listed = load_problem_topics(content_dir)
    _serialise_concurrent_syncs()
    wanted = {slug for slugs in listed.values() for slug in slugs}
    known = {topic.slug: topic for topic in Topic.objects.filter(slug__in=wanted)}
    faults = []
    for problem_slug, slugs in listed.items():
        for index, slug in enumerate(slugs, start=1):
            topic = known.get(slug)
            if topic is None or topic.retired_at is not None:
                why = "is retired (topics.yaml no longer lists it)" if topic else "is not a topic of topics.yaml"
                faults.append(ContentProblem(f"{problem_slug}/problem.toml", f"{FIELD}[{index}]", f"{slug!r} {why}"))
    if faults:
        raise ContentError(faults)

    report = SyncReport("Problem topics")
    for problem in Problem.objects.live().filter(slug__in=listed).prefetch_related("topics"):
        existing = {topic.pk for topic in problem.topics.all()}
        wanted_topics = [known[slug] for slug in listed[problem.slug]]
        if existing == {topic.pk for topic in wanted_topics}:
            report.unchanged += 1
            continue
        problem.topics.set(wanted_topics)
        # The row changed as the pages show it; the question list's cache follows updated_at.
        problem.save(update_fields=["updated_at"])
        if existing:
            report.updated += 1
        else:
            report.created += 1
    return report
