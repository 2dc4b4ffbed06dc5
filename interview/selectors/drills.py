"""Reads of drills: the list by topic, the open attempt, what is due, and which drills a session asks."""

from dataclasses import dataclass
from datetime import datetime

from interview.models import Drill, DrillAttempt, DrillCard, Topic
from interview.selectors.study_days import end_of_today

DIFFICULTY_ORDER = ("easy", "medium", "hard")


@dataclass
class TopicDrills:
    topic: Topic
    drills: list[Drill]


def drills_by_topic(*, user=None) -> list[TopicDrills]:
    """Live drills grouped by topic in the topics' order; with a user, each carries `best` (their best percent)."""
    drills = list(Drill.objects.live().select_related("topic"))
    if user is not None and user.is_authenticated:
        best: dict[int, float] = {}
        for drill_id, score in DrillAttempt.objects.filter(user=user, score__isnull=False).values_list(
                "drill_id", "score"):
            best[drill_id] = max(score, best.get(drill_id, 0.0))
        for drill in drills:
            drill.best = round(100 * best[drill.pk]) if drill.pk in best else None
    groups: dict[int, TopicDrills] = {}
    for drill in drills:
        groups.setdefault(drill.topic_id, TopicDrills(drill.topic, [])).drills.append(drill)
    return list(groups.values())


def open_attempt(*, user, drill: Drill) -> DrillAttempt | None:
    """The user's latest unanswered attempt made on the drill's own page (not one of a session or interview)."""
    return (DrillAttempt.objects.filter(user=user, drill=drill, answered_at__isnull=True,
                                        practice_item__isnull=True, mock_interview_item__isnull=True)
            .order_by("-created_at", "-id").first())


def due_drill_cards(*, user, now: datetime | None = None):
    """The user's drill cards due before their today ends, soonest first."""
    horizon = end_of_today(user=user, now=now)
    return (DrillCard.objects.filter(user=user, due__lt=horizon, drill__in=Drill.objects.live())
            .select_related("drill").order_by("due"))


def topic_drills(*, user, topic: Topic, limit: int, now: datetime | None = None) -> list[Drill]:
    """The topic's drills for a session: due first, then never drawn (easy first), then the soonest due."""
    drills = list(Drill.objects.live().filter(topic=topic))
    cards = {card.drill_id: card for card in DrillCard.objects.filter(user=user, drill__in=drills)}
    horizon = end_of_today(user=user, now=now)
    due = sorted((d for d in drills if d.pk in cards and cards[d.pk].due < horizon), key=lambda d: cards[d.pk].due)
    new = sorted((d for d in drills if d.pk not in cards),
                 key=lambda d: (DIFFICULTY_ORDER.index(d.difficulty), d.title))
    ahead = sorted((d for d in drills if d.pk in cards and cards[d.pk].due >= horizon), key=lambda d: cards[d.pk].due)
    return (due + new + ahead)[:limit]

