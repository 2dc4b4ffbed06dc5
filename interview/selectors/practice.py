"""Reads for practice: what is due, progress per topic, solved problems, and where a session stands."""

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from interview.models import (
    ItemState, PracticeItem, PracticeSession, Problem, Question, ReviewCard, SessionState, Status, Submission, Suite,
    Topic, Verdict,
)
from interview.selectors.study_days import end_of_today


def solved_problem_ids(*, user) -> set[int]:
    """Problems the user has an accepted submission of all tests to."""
    return set(Submission.objects.filter(user=user, status=Status.FINISHED, judgement__verdict=Verdict.ACCEPTED,
                                         suite=Suite.ALL).values_list("problem_id", flat=True).distinct())


def due_cards(*, user, now: datetime | None = None) -> QuerySet[ReviewCard]:
    """The user's cards due before their today ends, soonest first (overdue ones included)."""
    return (ReviewCard.objects.filter(user=user, due__lt=end_of_today(user=user, now=now),
                                      question__in=Question.objects.live())
            .select_related("question", "question__topic").order_by("due"))


@dataclass
class TopicProgress:
    topic: Topic
    total: int
    known: int = 0  # reviewed, and recalled (Good or Easy) the last time
    learning: int = 0  # reviewed, and last rated Again or Hard
    due: int = 0

    @property
    def new(self) -> int:
        return self.total - self.known - self.learning

    def share(self, count: int) -> float:
        return 100 * count / self.total if self.total else 0.0

    @property
    def known_percent(self) -> float:
        return self.share(self.known)

    @property
    def learning_percent(self) -> float:
        return self.share(self.learning)


def topic_progress(*, user, now: datetime | None = None) -> list[TopicProgress]:
    """Per live topic: its questions known, being learnt and new to the user, and how many are due."""
    horizon = end_of_today(user=user, now=now)
    progress = {topic.pk: TopicProgress(topic, 0) for topic in Topic.objects.live()}
    for topic_id in Question.objects.live().values_list("topic_id", flat=True):
        if topic_id in progress:
            progress[topic_id].total += 1
    cards = ReviewCard.objects.filter(user=user, question__in=Question.objects.live()).values_list(
        "question__topic_id", "last_rating", "due")
    for topic_id, last_rating, due in cards:
        row = progress.get(topic_id)
        if row is None:
            continue
        if last_rating >= 3:
            row.known += 1
        else:
            row.learning += 1
        row.due += int(due < horizon)
    return [row for row in progress.values() if row.total]


def solved_problems(*, user) -> list[Problem]:
    return list(Problem.objects.live().filter(pk__in=solved_problem_ids(user=user)).order_by("title"))


@dataclass
class SessionView:
    session: PracticeSession
    items: list[PracticeItem]
    current: PracticeItem | None
    done: int
    skipped: int
    solved: set[int] = field(default_factory=set)

    @property
    def total(self) -> int:
        return len(self.items)

    @property
    def next_item(self) -> PracticeItem | None:
        """The first item after the current one still to do, else the first before it; None when none is."""
        after = self.current.position if self.current else 0
        waiting = [item for item in self.items if not item.handled]
        return next((item for item in waiting if item.position > after), waiting[0] if waiting else None)


def item_is_done(item: PracticeItem, solved: set[int]) -> bool:
    """Answered: a question rated, a drill estimated, a problem solved. A skipped item is not done."""
    if item.is_problem:
        return item.problem_id in solved
    return item.state == ItemState.RATED


def session_view(*, session: PracticeSession, position: int | None = None) -> SessionView:
    """The session's items, each marked done, skipped or neither, and the one to show (position, else the first
    neither done nor skipped)."""
    items = list(session.items.select_related("question", "question__topic", "problem", "drill", "drill__topic",
                                              "drill_attempt"))
    solved = solved_problem_ids(user=session.user)
    for item in items:
        item.done = item_is_done(item, solved)
        item.skipped = not item.done and item.state == ItemState.SKIPPED
        item.handled = item.done or item.skipped
        item.solved = item.problem_id in solved
    current = next((item for item in items if item.position == position), None) if position else None
    if current is None and session.state == SessionState.ACTIVE:
        current = next((item for item in items if not item.handled), None)
    return SessionView(session, items, current, done=sum(item.done for item in items),
                       skipped=sum(item.skipped for item in items), solved=solved)


def recent_sessions(*, user, limit: int = 5) -> list[PracticeSession]:
    return list(PracticeSession.objects.filter(user=user).select_related("topic", "problem_set")[:limit])


def upcoming_count(*, user, now: datetime | None = None) -> int:
    """Cards that come due after today: the ones a finished day leaves behind."""
    return ReviewCard.objects.filter(user=user, due__gte=end_of_today(user=user, now=now or timezone.now())).count()
