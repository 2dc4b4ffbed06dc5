"""Writes a user makes on a problem besides submitting: the draft, and reading the solution early."""

from django.conf import settings

from interview.models import Problem, ProblemDraft, SolutionReveal
from interview.services.submissions import RefusalReason, Refused


def draft_save(*, user, problem: Problem, source: str) -> ProblemDraft:
    """Keep what the user is typing, so a reload or another device picks it up."""
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > settings.JUDGE_MAX_SOURCE_BYTES:
        raise Refused(
            f"The draft is {size:,} bytes; the limit is {settings.JUDGE_MAX_SOURCE_BYTES:,}.",
            reason=RefusalReason.TOO_LARGE,
        )
    draft, _ = ProblemDraft.objects.update_or_create(user=user, problem=problem, defaults={"source": source})
    return draft


def solution_reveal(*, user, problem: Problem) -> SolutionReveal:
    """Record that the user chose to read the model answer before solving the problem."""
    reveal, _ = SolutionReveal.objects.get_or_create(user=user, problem=problem)
    return reveal
