"""The user's days: what is due today and the streak, both counted in the user's time zone."""

from datetime import timedelta

import pytest

from interview.models import Rating, Review
from interview.selectors.practice import due_cards, topic_progress
from interview.selectors.study_days import end_of_today, study_streak
from interview.services.practice import review_record, study_profile_set_timezone
from tests.interview.factories import QuestionFactory, SubmissionFactory, UserFactory
from tests.interview.study_support import START, clock  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db


def studied(user, when, *, accepted_submission: bool = False):
    """A review (or an accepted submission of all tests) at this instant."""
    if accepted_submission:
        SubmissionFactory(user=user, verdict="accepted", finished_at=when)
    else:
        review_record(user=user, question=QuestionFactory(), rating=Rating.GOOD, covered=[], reviewed_at=when)


def test_the_streak_counts_consecutive_days_up_to_today(clock):
    user = UserFactory()
    for days_ago in (0, 1, 2, 4):
        studied(user, clock.now - timedelta(days=days_ago))
    streak = study_streak(user=user)
    assert (streak.days, streak.studied_today, streak.longest) == (3, True, 3)


def test_a_streak_that_reached_yesterday_is_alive_until_today_ends(clock):
    user = UserFactory()
    studied(user, clock.now - timedelta(days=1))
    studied(user, clock.now - timedelta(days=2), accepted_submission=True)
    assert (study_streak(user=user).days, study_streak(user=user).studied_today) == (2, False)
    clock.advance(days=1)
    assert study_streak(user=user).days == 0


def test_an_accepted_submission_counts_and_a_wrong_one_does_not(clock):
    user = UserFactory()
    SubmissionFactory(user=user, verdict="wrong_answer", finished_at=clock.now)
    assert study_streak(user=user).days == 0
    studied(user, clock.now, accepted_submission=True)
    assert study_streak(user=user).days == 1


def test_days_are_the_users_own_not_utcs(clock):
    user = UserFactory()
    # 02:00 UTC on 2 March and 20:00 UTC the day before: two UTC days, but both 1 March in Los Angeles.
    studied(user, START - timedelta(hours=7))
    studied(user, START - timedelta(hours=13))
    assert study_streak(user=user).days == 2
    study_profile_set_timezone(user=user, timezone_name="America/Los_Angeles")
    assert study_streak(user=user).days == 1


def test_due_today_includes_cards_due_before_the_users_midnight_and_not_after(clock):
    user = UserFactory()
    study_profile_set_timezone(user=user, timezone_name="Asia/Tokyo")  # 09:00 UTC is 18:00 in Tokyo
    again = review_record(user=user, question=QuestionFactory(), rating=Rating.AGAIN, covered=[])
    review_record(user=user, question=QuestionFactory(), rating=Rating.EASY, covered=[])
    assert list(due_cards(user=user).values_list("question", flat=True)) == [again.question_id]
    assert end_of_today(user=user).isoformat() == "2026-03-03T00:00:00+09:00"


def test_progress_per_topic_separates_known_learning_and_new(clock):
    user = UserFactory()
    known, learning, _new = (QuestionFactory(topic__slug="attention") for _ in range(3))
    review_record(user=user, question=known, rating=Rating.GOOD, covered=[])
    review_record(user=user, question=learning, rating=Rating.AGAIN, covered=[])
    [row] = [row for row in topic_progress(user=user) if row.topic.slug == "attention"]
    assert (row.total, row.known, row.learning, row.new, row.due) == (3, 1, 1, 1, 1)
    assert Review.objects.filter(user=user).count() == 2
