"""Writes a user makes on a problem besides submitting: the draft, and reading the solution early."""

from datetime import datetime
from enum import Enum

from django.conf import settings
from django.db import transaction

from interview.models import DraftOrigin, Problem, ProblemDraft, SolutionReveal
from interview.services.submissions import RefusalReason, Refused


def _check_draft_size(source: str) -> None:
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > settings.JUDGE_MAX_SOURCE_BYTES:
        raise Refused(
            f"The draft is {size:,} bytes; the limit is {settings.JUDGE_MAX_SOURCE_BYTES:,}.",
            reason=RefusalReason.TOO_LARGE,
        )


def draft_save(*, user, problem: Problem, source: str) -> ProblemDraft:
    """Keep what the user is typing, so a reload or another device picks it up."""
    _check_draft_size(source)
    draft, _ = ProblemDraft.objects.update_or_create(user=user, problem=problem, defaults={"source": source})
    return draft


def draft_carry(*, user, problem: Problem, source: str, saved_at: datetime) -> ProblemDraft:
    """Bring code typed in a browser before logging in into the account.

    The newer of it and the account's draft goes in the editor; the account's wins only if it is newer. When
    the two differ, the other is kept beside it until the user picks one (draft_pick), so nothing is lost.
    """
    _check_draft_size(source)
    with transaction.atomic():
        draft = ProblemDraft.objects.select_for_update().filter(user=user, problem=problem).first()
        if draft is None:
            return ProblemDraft.objects.create(user=user, problem=problem, source=source)
        if draft.source == source:
            return draft
        if draft.updated_at > saved_at:
            # An update, not save(): updated_at says when the account's code was written, and stays so.
            ProblemDraft.objects.filter(pk=draft.pk).update(
                other_source=source, other_origin=DraftOrigin.BROWSER, other_saved_at=saved_at)
        else:
            draft.other_source, draft.other_origin, draft.other_saved_at = (
                draft.source, DraftOrigin.ACCOUNT, draft.updated_at)
            draft.source = source
            draft.save()
        draft.refresh_from_db()
        return draft


class Pick(Enum):
    EDITOR = "editor"
    OTHER = "other"


def draft_pick(*, user, problem: Problem, keep: Pick) -> ProblemDraft | None:
    """Settle two versions of a draft: keep the editor's or the other one; the one not kept is dropped."""
    with transaction.atomic():
        draft = ProblemDraft.objects.select_for_update().filter(user=user, problem=problem).first()
        if draft is None or not draft.has_other_version:
            return draft
        if keep is Pick.OTHER:
            draft.source = draft.other_source
        draft.other_source, draft.other_origin, draft.other_saved_at = "", "", None
        draft.save()
        return draft


def solution_reveal(*, user, problem: Problem) -> SolutionReveal:
    """Record that the user chose to read the model answer before solving the problem."""
    reveal, _ = SolutionReveal.objects.get_or_create(user=user, problem=problem)
    return reveal
