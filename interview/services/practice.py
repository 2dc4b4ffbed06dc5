"""Writes of practice: sessions and their items, reviews scheduled by FSRS, and the user's time zone.

Scheduling is py-fsrs's: a card's state goes in as `Card.from_dict` and comes back out as `to_dict`, and the
due date is the scheduler's, never computed here. Each item moves by one guarded UPDATE (see
interview.models.practice), so a double-clicked button records one review.
"""

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from fsrs import Card, Rating as FsrsRating

from interview.keypoints import covered_indices
from interview.models import (
    Difficulty, ItemState, PracticeItem, PracticeSession, ProblemSet, Question, Rating, Review, ReviewCard,
    SessionState, StudyProfile, Topic,
)
from interview.selectors.drills import due_drill_cards, topic_drills
from interview.selectors.practice import solved_problem_ids
from interview.selectors.problem_sets import set_items
from interview.selectors.study_days import end_of_today, valid_timezone
from interview.services.drills import DrillError, drill_attempt_answer, drill_attempt_start
from interview.services.scheduling import scheduler

SESSION_SIZE = 10
DUE_SESSION_SIZE = 20
# Estimation drills a topic session adds after its questions.
SESSION_DRILLS = 3


class PracticeError(Exception):
    """A practice write that does not apply (an empty session, an item already rated)."""


def study_profile_set_timezone(*, user, timezone_name: str) -> bool:
    """Count the user's days in this IANA zone (as their browser reports it); False when it is not one."""
    if valid_timezone(timezone_name) is None:
        return False
    StudyProfile.objects.update_or_create(user=user, defaults={"timezone": timezone_name})
    return True


def review_record(*, user, question: Question, rating: int, covered: list[int], answer: str = "",
                  reviewed_at: datetime | None = None) -> Review:
    """Review question now: FSRS schedules the user's card for it from rating, and the review is logged."""
    rating = Rating(rating)
    reviewed_at = reviewed_at or timezone.now()
    covered = sorted({index for index in covered if 0 <= index < len(question.key_points)})
    with transaction.atomic():
        row = ReviewCard.objects.select_for_update().filter(user=user, question=question).first()
        card = Card.from_dict(row.fsrs_card) if row else Card()
        card, _log = scheduler().review_card(card, FsrsRating(rating.value), reviewed_at)
        fields = {"fsrs_card": card.to_dict(), "due": card.due, "last_rating": rating, "last_reviewed_at": reviewed_at}
        if row is None:
            row = ReviewCard.objects.create(user=user, question=question, reviews=1,
                                            lapses=int(rating == Rating.AGAIN), **fields)
        else:
            for name, value in fields.items():
                setattr(row, name, value)
            row.reviews += 1
            row.lapses += int(rating == Rating.AGAIN)
            row.save()
        return Review.objects.create(user=user, question=question, rating=rating, answer=answer, covered=covered,
                                     reviewed_at=reviewed_at, due_after=card.due)


def practice_session_start(*, user, topic: Topic | None = None, problem_set: ProblemSet | None = None,
                           now: datetime | None = None) -> PracticeSession:
    """A session over a set (all its items), a topic (due, then new, then soonest: questions, then a few drills) or,
    with neither, what is due (questions, then drills)."""
    now = now or timezone.now()
    drills = []
    if problem_set is not None:
        items = set_items(problem_set)
        targets = [(item.question, item.problem) for item in items if not item.is_drill]
        drills = [item.drill for item in items if item.is_drill]
    elif topic is not None:
        targets = [(question, None) for question in _topic_questions(user=user, topic=topic, now=now)]
        drills = topic_drills(user=user, topic=topic, limit=SESSION_DRILLS, now=now)
    else:
        due = (ReviewCard.objects.filter(user=user, due__lt=end_of_today(user=user, now=now),
                                         question__in=Question.objects.live())
               .select_related("question").order_by("due")[:DUE_SESSION_SIZE])
        targets = [(card.question, None) for card in due]
        drills = [card.drill for card in due_drill_cards(user=user, now=now)[:DUE_SESSION_SIZE]]
    if not targets and not drills:
        raise PracticeError("Nothing to practise there: no question is due today.")
    with transaction.atomic():
        session = PracticeSession.objects.create(user=user, topic=topic, problem_set=problem_set, started_at=now)
        # A drill's numbers are drawn now, so the page shows and grades the same ones however often it is opened.
        rows = [{"question": question, "problem": problem} for question, problem in targets] + [
            {"drill": drill, "drill_attempt": drill_attempt_start(user=user, drill=drill, now=now)} for drill in drills]
        PracticeItem.objects.bulk_create(
            PracticeItem(session=session, position=position, **row) for position, row in enumerate(rows, start=1))
    return session


def _topic_questions(*, user, topic: Topic, now: datetime) -> list[Question]:
    """Due questions of the topic first, then ones never reviewed (easy first), then the soonest due."""
    questions = list(Question.objects.live().filter(topic=topic))
    cards = {card.question_id: card for card in ReviewCard.objects.filter(user=user, question__in=questions)}
    horizon = end_of_today(user=user, now=now)
    due = sorted((q for q in questions if q.pk in cards and cards[q.pk].due < horizon), key=lambda q: cards[q.pk].due)
    new = sorted((q for q in questions if q.pk not in cards),
                 key=lambda q: (Difficulty.values.index(q.difficulty), q.title))
    ahead = sorted((q for q in questions if q.pk in cards and cards[q.pk].due >= horizon),
                   key=lambda q: cards[q.pk].due)
    return (due + new + ahead)[:SESSION_SIZE]


def _move(item: PracticeItem, source: str, **fields) -> None:
    """One guarded move of item out of state source; PracticeError when it already left it."""
    moved = PracticeItem.objects.filter(pk=item.pk, state=source, session__state=SessionState.ACTIVE).update(**fields)
    if not moved:
        raise PracticeError("This item was already answered; the session shows where you are.")
    for name, value in fields.items():
        setattr(item, name, value)


def practice_reveal(*, item: PracticeItem, answer: str) -> PracticeItem:
    """The user's own answer is in: keep it, pre-tick the key points it covers, and show the model answer."""
    if item.question_id is None:
        raise PracticeError("Only a concept question has a model answer to reveal.")
    answer = answer.strip()
    _move(item, ItemState.PENDING, state=ItemState.REVEALED, answer=answer,
          matched=covered_indices(answer, item.question.key_points))
    return item


def practice_rate(*, item: PracticeItem, rating: int, covered: list[int], now: datetime | None = None) -> Review:
    """Record how well the revealed question was recalled; the session finishes after its last item."""
    with transaction.atomic():
        review = review_record(user=item.session.user, question=item.question, rating=rating, covered=covered,
                               answer=item.answer, reviewed_at=now)
        _move(item, ItemState.REVEALED, state=ItemState.RATED, review=review)
        _finish_when_done(item.session, now=now)
    return review


def practice_estimate(*, item: PracticeItem, answer: str, now: datetime | None = None) -> PracticeItem:
    """Grade the drill's estimate and review its card; AnswerRefused, with nothing written, when it cannot be."""
    if item.drill_id is None:
        raise PracticeError("Only an estimation drill is answered with a number and a unit.")
    with transaction.atomic():
        try:
            drill_attempt_answer(attempt=item.drill_attempt, answer=answer, now=now)
        except DrillError as error:
            raise PracticeError(str(error)) from None
        _move(item, ItemState.PENDING, state=ItemState.RATED)
        _finish_when_done(item.session, now=now)
    return item


def practice_skip(*, item: PracticeItem, now: datetime | None = None) -> None:
    """Leave an item for later (a problem is also left by solving it: done is read from the submissions)."""
    with transaction.atomic():
        _move(item, ItemState.PENDING, state=ItemState.SKIPPED)
        _finish_when_done(item.session, now=now)


def _finish_when_done(session: PracticeSession, *, now: datetime | None) -> None:
    open_questions = session.items.filter(question__isnull=False).exclude(state__in=(ItemState.RATED,
                                                                                     ItemState.SKIPPED))
    open_problems = session.items.filter(problem__isnull=False, state=ItemState.PENDING)
    unsolved = open_problems.exclude(problem_id__in=solved_problem_ids(user=session.user))
    open_drills = session.items.filter(drill__isnull=False, state=ItemState.PENDING)
    if not open_questions.exists() and not unsolved.exists() and not open_drills.exists():
        practice_session_finish(session=session, now=now)


def practice_session_finish(*, session: PracticeSession, now: datetime | None = None) -> bool:
    """Close the session (active → finished); False when it was already finished."""
    now = now or timezone.now()
    moved = PracticeSession.objects.filter(pk=session.pk, state=SessionState.ACTIVE).update(
        state=SessionState.FINISHED, finished_at=now)
    if moved:
        session.state, session.finished_at = SessionState.FINISHED, now
    return bool(moved)
