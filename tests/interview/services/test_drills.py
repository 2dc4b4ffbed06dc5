"""Drills as the user meets them: attempts drawn and graded, refused answers, practice, review and interviews."""

import random

import pytest

from interview.estimation.units import AnswerRefused
from interview.models import Drill, DrillAttempt, DrillCard, ItemState, MockInterviewItem, SessionState
from interview.selectors.mock_interviews import interview_report
from interview.services.drills import DrillError, drill_attempt_answer, drill_attempt_start
from interview.services.mock_interviews import InterviewOver, mock_interview_estimate, mock_interview_start
from interview.services.practice import practice_estimate, practice_session_start, practice_skip
from tests.interview.drill_support import make_drill, right_answer
from tests.interview.factories import ProblemFactory, QuestionFactory, TopicFactory, UserFactory
from tests.interview.study_support import clock  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db


def test_an_attempt_stores_its_seed_parameters_and_right_value_and_the_same_seed_draws_the_same(clock):
    drill, user = make_drill(TopicFactory()), UserFactory()
    first = drill_attempt_start(user=user, drill=drill, seed=7)
    again = drill_attempt_start(user=user, drill=drill, seed=7)
    assert first.parameters == again.parameters
    assert first.right_value == 2 * first.parameters["layers"] * 8 * 128 * 2 / 1024
    assert str(first.parameters["layers"]) in first.worked().prompt


def test_an_answer_within_the_tolerance_earns_full_credit_and_reviews_the_card(clock):
    attempt = drill_attempt_start(user=UserFactory(), drill=make_drill(TopicFactory()))
    drill_attempt_answer(attempt=attempt, answer=f"{attempt.right_value * 1.1 * 1024} B")
    attempt.refresh_from_db()
    assert attempt.score == 1.0 and attempt.answered
    card = DrillCard.objects.get(user=attempt.user, drill=attempt.drill)
    assert card.reviews == 1 and card.due > clock.now


def test_a_drill_answered_far_off_comes_back_sooner_than_one_answered_right(clock):
    user, topic = UserFactory(), TopicFactory()
    right, wrong = make_drill(topic, slug="right"), make_drill(topic, slug="wrong")
    good = drill_attempt_start(user=user, drill=right)
    drill_attempt_answer(attempt=good, answer=right_answer(good))
    bad = drill_attempt_start(user=user, drill=wrong)
    drill_attempt_answer(attempt=bad, answer=f"{bad.right_value * 20} KiB")
    assert DrillAttempt.objects.get(pk=bad.pk).score == 0.0
    assert DrillCard.objects.get(drill=wrong).due < DrillCard.objects.get(drill=right).due


@pytest.mark.parametrize("typed", ["", "lots", "160 GB/s", "160", "-1 KiB", "160 TiB", "__import__('os')"])
def test_an_answer_that_cannot_be_graded_changes_no_score_and_no_card(clock, typed):
    attempt = drill_attempt_start(user=UserFactory(), drill=make_drill(TopicFactory()))
    with pytest.raises(AnswerRefused):
        drill_attempt_answer(attempt=attempt, answer=typed)
    attempt.refresh_from_db()
    assert (attempt.score, attempt.answered_at, attempt.answer) == (None, None, "")
    assert not DrillCard.objects.exists()


def test_an_attempt_is_graded_once(clock):
    attempt = drill_attempt_start(user=UserFactory(), drill=make_drill(TopicFactory()))
    drill_attempt_answer(attempt=attempt, answer=right_answer(attempt))
    stale = DrillAttempt.objects.get(pk=attempt.pk)
    with pytest.raises(DrillError, match="already answered"):
        drill_attempt_answer(attempt=stale, answer="1 KiB")
    assert DrillAttempt.objects.get(pk=attempt.pk).score == 1.0


# ---- Practice and review -----------------------------------------------------------------------------------


def test_a_topic_session_asks_the_topics_drills_after_its_questions_and_finishes_once_they_are_answered(clock):
    user, topic = UserFactory(), TopicFactory()
    drill = make_drill(topic)
    make_drill(TopicFactory(), slug="elsewhere")
    question = QuestionFactory(topic=topic)
    session = practice_session_start(user=user, topic=topic)
    items = list(session.items.select_related("drill_attempt"))
    assert [(item.question, item.drill) for item in items] == [(question, None), (None, drill)]
    drill_item = items[1]
    with pytest.raises(AnswerRefused):
        practice_estimate(item=drill_item, answer="160 GB/s")
    drill_item.refresh_from_db()
    assert drill_item.state == ItemState.PENDING
    practice_skip(item=items[0])
    practice_estimate(item=drill_item, answer=right_answer(drill_item.drill_attempt))
    drill_item.refresh_from_db()
    session.refresh_from_db()
    assert drill_item.state == ItemState.RATED and drill_item.drill_attempt.score == 1.0
    assert session.state == SessionState.FINISHED


def test_a_review_session_brings_back_the_drills_that_are_due(clock):
    user, drill = UserFactory(), make_drill(TopicFactory())
    attempt = drill_attempt_start(user=user, drill=drill)
    drill_attempt_answer(attempt=attempt, answer=f"{attempt.right_value * 30} KiB")  # Again: due within minutes
    clock.advance(hours=1)
    session = practice_session_start(user=user)
    assert [item.drill for item in session.items.all()] == [drill]
    assert session.items.get().drill_attempt.pk != attempt.pk  # fresh numbers for the review


# ---- Mock interviews --------------------------------------------------------------------------------------


def loop_bank():
    for index in range(4):
        QuestionFactory(topic=TopicFactory(slug=f"t{index}"))
    ProblemFactory()
    make_drill(TopicFactory(slug="numbers"))


@pytest.mark.parametrize("level", ["mid", "senior"])
def test_a_generated_loop_from_mid_level_asks_a_drill_before_the_coding(clock, level):
    loop_bank()
    interview = mock_interview_start(user=UserFactory(), duration_minutes=45, level=level, rng=random.Random(3))
    kinds = ["drill" if item.drill_id else "problem" if item.problem_id else "question"
             for item in interview.items.all()]
    assert kinds == ["question"] * 4 + ["drill", "problem"]
    assert interview.items.get(drill__isnull=False).drill_attempt.user == interview.user


def test_a_junior_loop_asks_no_drill(clock):
    loop_bank()
    interview = mock_interview_start(user=UserFactory(), duration_minutes=45, level="junior", rng=random.Random(3))
    assert not interview.items.filter(drill__isnull=False).exists()


def test_an_interview_estimate_counts_in_the_report_until_the_end_and_is_refused_after(clock):
    loop_bank()
    interview = mock_interview_start(user=UserFactory(), duration_minutes=30, level="mid", rng=random.Random(1))
    drill_item = MockInterviewItem.objects.select_related("interview", "drill_attempt").get(
        interview=interview, drill__isnull=False)
    attempt = drill_item.drill_attempt
    mock_interview_estimate(item=drill_item, answer=f"{attempt.right_value * 3} KiB")
    with pytest.raises(AnswerRefused):
        mock_interview_estimate(item=drill_item, answer="3 parsecs")
    mock_interview_estimate(item=drill_item, answer=right_answer(attempt))
    clock.advance(minutes=31)
    with pytest.raises(InterviewOver):
        mock_interview_estimate(item=drill_item, answer="1 KiB")
    report = interview_report(interview=interview)
    entry = next(entry for entry in report.items if entry.item.is_drill)
    assert entry.score == 1.0 and entry.item.drill_attempt.answer == right_answer(attempt)
    assert entry.worked.answer == pytest.approx(attempt.right_value)
    assert entry.worked.steps[-1].name == "bytes"


def test_deleting_a_user_deletes_their_attempts_with_their_sessions_and_interviews(clock):
    loop_bank()
    user = UserFactory()
    mock_interview_start(user=user, duration_minutes=30, level="mid", rng=random.Random(1))
    practice_session_start(user=user, topic=Drill.objects.get().topic)
    user.delete()
    assert not DrillAttempt.objects.exists() and not MockInterviewItem.objects.exists()
