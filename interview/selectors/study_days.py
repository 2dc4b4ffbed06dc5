"""The user's days: their time zone, where today ends, and the streak of days they studied."""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.utils import timezone

from interview.models import Review, Status, StudyProfile, Submission, Suite, Verdict

# Activity further back than this cannot change the current streak by much, and is not read.
STREAK_HORIZON_DAYS = 400


def valid_timezone(name: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(name) if name else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def user_timezone(user) -> ZoneInfo:
    """The zone the user's days are counted in: the one their browser reported last, else UTC."""
    name = StudyProfile.objects.filter(user=user).values_list("timezone", flat=True).first()
    return valid_timezone(name or "") or ZoneInfo("UTC")


def end_of_today(*, user, now: datetime | None = None) -> datetime:
    """The first instant of the user's tomorrow: a card due before it is due today."""
    zone = user_timezone(user)
    today = (now or timezone.now()).astimezone(zone).date()
    return datetime.combine(today + timedelta(days=1), time.min, tzinfo=zone)


@dataclass(frozen=True)
class Streak:
    days: int  # consecutive days up to today (or up to yesterday, while today is still open)
    studied_today: bool
    longest: int


def study_streak(*, user, now: datetime | None = None) -> Streak:
    """Consecutive days, in the user's zone, with at least one review or one accepted submission."""
    zone = user_timezone(user)
    now = now or timezone.now()
    since = now - timedelta(days=STREAK_HORIZON_DAYS)
    moments = list(Review.objects.filter(user=user, reviewed_at__gte=since).values_list("reviewed_at", flat=True))
    moments += Submission.objects.filter(
        user=user, status=Status.FINISHED, judgement__verdict=Verdict.ACCEPTED, suite=Suite.ALL,
        judgement__finished_at__gte=since,
    ).values_list("judgement__finished_at", flat=True)
    days = {moment.astimezone(zone).date() for moment in moments}
    today = now.astimezone(zone).date()
    # A streak that reached yesterday is still alive until today ends.
    day = today if today in days else today - timedelta(days=1)
    current = 0
    while day in days:
        current += 1
        day -= timedelta(days=1)
    return Streak(days=current, studied_today=today in days, longest=_longest_run(days))


def _longest_run(days: set[date]) -> int:
    longest = 0
    for day in days:
        if day - timedelta(days=1) in days:
            continue  # not the start of a run
        length = 1
        while day + timedelta(days=length) in days:
            length += 1
        longest = max(longest, length)
    return longest
