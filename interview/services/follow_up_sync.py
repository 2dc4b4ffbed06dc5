"""Writing the problems' follow-ups into the database; see the sync_content command.

It runs after the bank (questions and drills) and the problems are synced, in the same transaction, so a
follow-up naming a question or drill that is not live stops the whole sync with nothing changed, as an
unknown related question does in the bank.
"""

from pathlib import Path

from django.db import transaction

from interview.content.errors import ContentError, ContentProblem
from interview.content.follow_ups import FIELD, load_follow_ups
from interview.models import Drill, Problem, ProblemFollowUp, Question
from interview.services.content_sync import SyncReport, _serialise_concurrent_syncs


@transaction.atomic
def sync_follow_ups(*, content_dir: Path) -> SyncReport:
    """Make each live problem's follow-ups those its problem.toml lists, in order; ContentError, with nothing
    written, when one names no live question or drill, or an id that is both."""
    listed = load_follow_ups(content_dir)
    _serialise_concurrent_syncs()
    wanted = {slug for slugs in listed.values() for slug in slugs}
    questions = {question.slug: question for question in Question.objects.live().filter(slug__in=wanted)}
    drills = {drill.slug: drill for drill in Drill.objects.live().filter(slug__in=wanted)}
    faults = []
    for problem_slug, slugs in listed.items():
        for index, slug in enumerate(slugs, start=1):
            field = f"{FIELD}[{index}]"
            if slug in questions and slug in drills:
                faults.append(ContentProblem(f"{problem_slug}/problem.toml", field,
                                             f"{slug!r} is both a question's and a drill's id; rename one"))
            elif slug not in questions and slug not in drills:
                faults.append(ContentProblem(f"{problem_slug}/problem.toml", field,
                                             f"no live question or drill {slug!r} (is its file in git?)"))
    if faults:
        raise ContentError(faults)

    report = SyncReport("Problem follow-ups")
    for problem in Problem.objects.live().filter(slug__in=listed).prefetch_related("follow_ups"):
        wanted_rows = [(questions.get(slug), drills.get(slug)) for slug in listed[problem.slug]]
        existing = [(row.question_id, row.drill_id) for row in problem.follow_ups.all()]
        if existing == [(question and question.pk, drill and drill.pk) for question, drill in wanted_rows]:
            report.unchanged += 1
            continue
        # The rows carry nothing but what they name and where: rewriting the list loses nothing.
        problem.follow_ups.all().delete()
        ProblemFollowUp.objects.bulk_create(
            ProblemFollowUp(problem=problem, position=position, question=question, drill=drill)
            for position, (question, drill) in enumerate(wanted_rows, start=1))
        if existing:
            report.updated += 1
        else:
            report.created += 1
    return report
