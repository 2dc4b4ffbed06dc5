"""Writes of drills: drawing an attempt, grading an answer, and the FSRS card a graded answer reviews.

What the user typed is read by interview.estimation.units, never evaluated; an answer that cannot be graded
raises AnswerRefused before anything is written, so it changes no score. A drill's review card is scheduled
by the same FSRS scheduler as the concept questions, rated from the score (RATING_FLOORS).
"""

import secrets
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from fsrs import Card, Rating as FsrsRating

from interview.estimation.drills import DrillSpec, draw_parameters, work
from interview.estimation.grading import grade
from interview.estimation.units import parse_answer
from interview.models import Drill, DrillAttempt, DrillCard, Rating
from interview.services.scheduling import scheduler

# The rating a score reviews the card with: full credit recalls it well, half credit with difficulty.
RATING_FLOORS = ((1.0, Rating.GOOD), (0.5, Rating.HARD), (0.0, Rating.AGAIN))


class DrillError(Exception):
    """A drill write that does not apply (an attempt already answered)."""


@dataclass(frozen=True)
class Graded:
    answer: str
    value: float
    score: float


def drill_attempt_start(*, user, drill: Drill, seed: int | None = None, now: datetime | None = None) -> DrillAttempt:
    """Draw the attempt's parameters (from seed, else a fresh one) and store them with the right value."""
    seed = secrets.randbits(62) if seed is None else seed
    parameters = draw_parameters(drill.drill_spec, seed)
    worked = work(drill.drill_spec, parameters)
    return DrillAttempt.objects.create(user=user, drill=drill, seed=seed, parameters=parameters, spec=drill.spec,
                                       right_value=worked.answer, created_at=now or timezone.now())


def drill_answer_grade(*, attempt: DrillAttempt, answer: str) -> Graded:
    """The typed answer read and graded against the attempt; AnswerRefused when it cannot be graded."""
    spec = DrillSpec.from_json(attempt.spec)
    value = parse_answer(answer, unit=spec.answer_unit, right_value=attempt.right_value)
    return Graded(answer.strip(), value, grade(value, attempt.right_value, spec.tolerance))


def drill_attempt_answer(*, attempt: DrillAttempt, answer: str, now: datetime | None = None) -> DrillAttempt:
    """Grade the answer of an open attempt and review the user's card for the drill; once per attempt."""
    graded = drill_answer_grade(attempt=attempt, answer=answer)
    now = now or timezone.now()
    with transaction.atomic():
        moved = DrillAttempt.objects.filter(pk=attempt.pk, answered_at__isnull=True).update(
            answer=graded.answer, answer_value=graded.value, score=graded.score, answered_at=now)
        if not moved:
            raise DrillError("This attempt was already answered; draw new numbers to try again.")
        drill_review_record(user=attempt.user, drill=attempt.drill, score=graded.score, reviewed_at=now)
    attempt.answer, attempt.answer_value, attempt.score, attempt.answered_at = (
        graded.answer, graded.value, graded.score, now)
    return attempt


def rating_for_score(score: float) -> Rating:
    return next(rating for floor, rating in RATING_FLOORS if score >= floor)


def drill_review_record(*, user, drill: Drill, score: float, reviewed_at: datetime) -> DrillCard:
    """Review the user's card for the drill with the rating the score earns; FSRS schedules the next draw."""
    rating = rating_for_score(score)
    row = DrillCard.objects.select_for_update().filter(user=user, drill=drill).first()
    card = Card.from_dict(row.fsrs_card) if row else Card()
    card, _log = scheduler().review_card(card, FsrsRating(rating.value), reviewed_at)
    fields = {"fsrs_card": card.to_dict(), "due": card.due, "last_rating": rating, "last_reviewed_at": reviewed_at}
    if row is None:
        return DrillCard.objects.create(user=user, drill=drill, reviews=1, **fields)
    for name, value in fields.items():
        setattr(row, name, value)
    row.reviews += 1
    row.save()
    return row
