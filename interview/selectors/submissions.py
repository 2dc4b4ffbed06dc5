"""Reads of submissions: a user's history, queue positions, the previous attempt, solved status."""

import difflib
from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from interview.models import Problem, SolutionReveal, Status, Submission, Suite, Verdict


def visible_submission(*, user, pk: int) -> Submission | None:
    """The submission, if `user` may see it (its author, or staff): code is private to its author."""
    if not user.is_authenticated:
        return None
    submissions = Submission.objects.select_related("problem", "user", "judgement").prefetch_related("judgement__tests")
    if not user.is_staff:
        submissions = submissions.filter(user=user)
    return submissions.filter(pk=pk).first()


def user_submissions(*, user, problem: Problem | None = None) -> QuerySet[Submission]:
    """A user's submissions, newest first, with their last judgements, without their code or its output (lists show
    neither)."""
    submissions = (Submission.objects.filter(user=user).select_related("problem", "judgement")
                   .defer("source", "judgement__stdout", "judgement__stderr"))
    return submissions.filter(problem=problem) if problem is not None else submissions


def queue_position(submission: Submission) -> int | None:
    """1 for the next submission its queue will judge; None unless it is queued."""
    if submission.status != Status.QUEUED:
        return None
    ahead = Submission.objects.filter(status=Status.QUEUED, queue=submission.queue, pk__lt=submission.pk).count()
    return ahead + 1


def judgement_count(submission: Submission) -> int:
    """How many of its judgements ended (with a verdict, or with the judge giving up): more than one once it was
    judged again."""
    return submission.judgements.filter(finished_at__isnull=False).count()


def previous_submission(submission: Submission) -> Submission | None:
    """The same user's submission to the same problem just before this one."""
    return (Submission.objects.filter(user_id=submission.user_id, problem_id=submission.problem_id,
                                      pk__lt=submission.pk).select_related("judgement").order_by("-pk").first())


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "added", "removed", "context" or "hunk"
    text: str


def source_diff(before: str, after: str) -> list[DiffLine]:
    """A unified diff of two sources, line by line, for a template to render escaped."""
    kinds = {"+": "added", "-": "removed", " ": "context", "@": "hunk"}
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), "previous", "this", lineterm="", n=3)
    return [DiffLine(kinds.get(line[:1], "context"), line) for line in lines if not line.startswith(("---", "+++"))]


SOLVED, ATTEMPTED, REVEALED = "solved", "attempted", "revealed"


def problem_statuses(*, user) -> dict[int, str]:
    """Per problem id: solved (an accepted submission of all tests), attempted, or revealed (answer read)."""
    if not user.is_authenticated:
        return {}
    accepted = Q(status=Status.FINISHED, judgement__verdict=Verdict.ACCEPTED, suite=Suite.ALL)
    rows = (Submission.objects.filter(user=user).values("problem_id")
            .annotate(solved=Count("pk", filter=accepted)))
    statuses = {row["problem_id"]: SOLVED if row["solved"] else ATTEMPTED for row in rows}
    for problem_id in SolutionReveal.objects.filter(user=user).values_list("problem_id", flat=True):
        if statuses.get(problem_id) != SOLVED:
            statuses[problem_id] = REVEALED
    return statuses


def has_solved(*, user, problem: Problem) -> bool:
    return user.is_authenticated and Submission.objects.filter(
        user=user, problem=problem, status=Status.FINISHED, judgement__verdict=Verdict.ACCEPTED, suite=Suite.ALL
    ).exists()
