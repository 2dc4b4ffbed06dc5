"""Helpers for the practice, problem-set and mock-interview tests: a fixed clock, and sets made from rows."""

from datetime import UTC, datetime, timedelta

import pytest

from interview.models import ProblemSet, ProblemSetItem

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class FixedClock:
    """django.utils.timezone.now, held at one instant until the test moves it."""

    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock(monkeypatch) -> FixedClock:
    fixed = FixedClock(START)
    monkeypatch.setattr("django.utils.timezone.now", fixed)
    return fixed


def make_set(*targets, slug: str = "attention-loop", published: bool = True, **fields) -> ProblemSet:
    """A set of these questions, problems and drills, in this order."""
    problem_set = ProblemSet.objects.create(slug=slug, title=fields.pop("title", slug.replace("-", " ").title()),
                                            is_published=published, **fields)
    for position, target in enumerate(targets, start=1):
        kind = type(target).__name__.lower()
        ProblemSetItem.objects.create(problem_set=problem_set, position=position, **{kind: target})
    return problem_set
