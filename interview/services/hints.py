"""Revealing a problem's hints, one at a time and in order, for a signed-in user or a visitor's session."""

from django.db import transaction

from interview.models import HintReveal, Problem

# A visitor's revealed hints live in their session, by problem slug, since they have no row to own.
SESSION_KEY = "hints_shown"


class HintRefused(Exception):
    """The hint asked for does not exist, or comes after one not yet revealed."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def shown_after_reveal(*, problem: Problem, shown: int, hint: int) -> int:
    """How many hints are shown once hint number `hint` (from 1) is revealed, `shown` being shown before.

    Revealing a hint already shown changes nothing, so a repeated request is harmless; skipping ahead is
    refused, because each hint assumes the ones before it were read.
    """
    total = len(problem.hints_html)
    if not 1 <= hint <= total:
        if total == 0:
            raise HintRefused(f"{problem.title} has no hints.")
        raise HintRefused(f"{problem.title} has hints 1 to {total}; there is no hint {hint}.")
    if hint > shown + 1:
        raise HintRefused(f"Hint {hint} follows hint {shown + 1}; reveal hint {shown + 1} first.")
    return max(shown, hint)


@transaction.atomic
def hint_reveal(*, user, problem: Problem, hint: int) -> int:
    """Reveal hint number `hint` of `problem` to a signed-in user; returns how many hints they now see."""
    reveal, _ = HintReveal.objects.select_for_update().get_or_create(user=user, problem=problem)
    shown = shown_after_reveal(problem=problem, shown=reveal.shown, hint=hint)
    if shown != reveal.shown:
        reveal.shown = shown
        reveal.save(update_fields=["shown", "updated_at"])
    return shown


def visitor_hint_reveal(*, session, problem: Problem, hint: int) -> int:
    """Reveal hint number `hint` of `problem` to a visitor, kept in their session; returns how many they see."""
    revealed = dict(session.get(SESSION_KEY, {}))
    shown = shown_after_reveal(problem=problem, shown=revealed.get(problem.slug, 0), hint=hint)
    revealed[problem.slug] = shown
    session[SESSION_KEY] = revealed
    return shown
