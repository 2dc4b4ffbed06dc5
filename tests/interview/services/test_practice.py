"""Practice: FSRS scheduling of reviews, and a session's items moving pending → revealed → rated."""

from datetime import timedelta

import pytest

from interview.models import ItemState, PracticeItem, Rating, Review, ReviewCard, SessionState
from interview.services.practice import (
    PracticeError, practice_rate, practice_reveal, practice_session_start, practice_skip, review_record,
    study_profile_set_timezone,
)
from tests.interview.factories import ProblemFactory, QuestionFactory, SubmissionFactory, TopicFactory, UserFactory
from tests.interview.study_support import clock, make_set  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db


def flash_question(**fields):
    points = [{"text": "Online softmax", "phrasings": ["online softmax", "running maximum"]},
              {"text": "Tiles in SRAM", "phrasings": ["tile sram"]},
              {"text": "Recompute in backward", "phrasings": ["recompute backward"]}]
    return QuestionFactory(key_points=points, **fields)


def test_a_failed_card_comes_back_sooner_than_an_easy_one(clock):
    user, failed, easy = UserFactory(), QuestionFactory(), QuestionFactory()
    again = review_record(user=user, question=failed, rating=Rating.AGAIN, covered=[])
    known = review_record(user=user, question=easy, rating=Rating.EASY, covered=[0, 1])
    assert again.due_after < known.due_after
    assert again.due_after - clock.now < timedelta(hours=1)
    assert known.due_after - clock.now >= timedelta(days=1)


def test_a_lapse_after_a_good_streak_brings_the_card_back_sooner_than_another_good(clock):
    user, question, other = UserFactory(), QuestionFactory(), QuestionFactory()
    for reviewed in (question, other):
        review_record(user=user, question=reviewed, rating=Rating.GOOD, covered=[])
    clock.advance(days=3)
    for reviewed in (question, other):
        review_record(user=user, question=reviewed, rating=Rating.GOOD, covered=[])
    clock.advance(days=10)
    lapse = review_record(user=user, question=question, rating=Rating.AGAIN, covered=[])
    good = review_record(user=user, question=other, rating=Rating.GOOD, covered=[])
    assert lapse.due_after < good.due_after
    card = ReviewCard.objects.get(user=user, question=question)
    assert (card.reviews, card.lapses, card.last_rating) == (3, 1, Rating.AGAIN)


def test_the_card_keeps_the_schedulers_own_state_and_its_due_date(clock):
    user, question = UserFactory(), QuestionFactory()
    review = review_record(user=user, question=question, rating=Rating.GOOD, covered=[0, 7, 0])
    card = ReviewCard.objects.get(user=user, question=question)
    assert card.due == review.due_after
    assert card.fsrs_card["due"] == card.due.isoformat()
    assert {"stability", "difficulty", "state", "last_review"} <= set(card.fsrs_card)
    assert review.covered == [0]  # out-of-range and repeated indices dropped


def test_a_topic_session_takes_due_questions_first_then_new_ones_easy_first(clock):
    user, topic = UserFactory(), TopicFactory()
    hard = QuestionFactory(topic=topic, difficulty="hard", title="A hard one")
    easy = QuestionFactory(topic=topic, difficulty="easy", title="An easy one")
    due = QuestionFactory(topic=topic, difficulty="medium")
    review_record(user=user, question=due, rating=Rating.AGAIN, covered=[])
    clock.advance(hours=1)
    session = practice_session_start(user=user, topic=topic)
    assert [item.question for item in session.items.all()] == [due, easy, hard]


def test_a_due_session_is_refused_when_nothing_is_due(clock):
    with pytest.raises(PracticeError, match="no question is due"):
        practice_session_start(user=UserFactory())


def test_a_set_session_takes_every_item_of_the_set_in_order(clock):
    question, problem = QuestionFactory(), ProblemFactory()
    session = practice_session_start(user=UserFactory(), problem_set=make_set(problem, question))
    assert [(item.problem, item.question) for item in session.items.all()] == [(problem, None), (None, question)]


def test_the_flow_answer_reveal_tick_rate_records_the_review_and_finishes_the_session(clock):
    user, question = UserFactory(), flash_question()
    session = practice_session_start(user=user, problem_set=make_set(question))
    item = session.items.get()
    practice_reveal(item=item, answer="It keeps a running maximum per row: an online softmax.")
    item.refresh_from_db()
    assert (item.state, item.matched) == (ItemState.REVEALED, [0])
    review = practice_rate(item=item, rating=Rating.GOOD, covered=[0, 2])
    item.refresh_from_db()
    session.refresh_from_db()
    assert item.state == ItemState.RATED and item.review == review
    assert (review.covered, review.answer) == ([0, 2], "It keeps a running maximum per row: an online softmax.")
    assert session.state == SessionState.FINISHED


def test_rating_twice_records_one_review(clock):
    user, question = UserFactory(), flash_question()
    item = practice_session_start(user=user, problem_set=make_set(question)).items.get()
    practice_reveal(item=item, answer="")
    practice_rate(item=item, rating=Rating.GOOD, covered=[])
    stale = PracticeItem.objects.get(pk=item.pk)
    stale.state = ItemState.REVEALED
    with pytest.raises(PracticeError):
        practice_rate(item=stale, rating=Rating.EASY, covered=[])
    assert Review.objects.count() == 1


def test_a_question_cannot_be_rated_before_its_answer_is_revealed(clock):
    item = practice_session_start(user=UserFactory(), problem_set=make_set(flash_question())).items.get()
    with pytest.raises(PracticeError):
        practice_rate(item=item, rating=Rating.GOOD, covered=[])
    assert not ReviewCard.objects.exists()


def test_a_solved_problem_counts_as_done_and_the_session_finishes_after_the_last_question(clock):
    user, question, problem = UserFactory(), flash_question(), ProblemFactory()
    session = practice_session_start(user=user, problem_set=make_set(question, problem))
    SubmissionFactory(user=user, problem=problem, verdict="accepted", finished_at=clock.now)
    item = session.items.get(question=question)
    practice_reveal(item=item, answer="")
    practice_rate(item=item, rating=Rating.HARD, covered=[])
    session.refresh_from_db()
    assert session.state == SessionState.FINISHED


def test_an_unsolved_problem_keeps_the_session_open_until_it_is_skipped(clock):
    user, question, problem = UserFactory(), flash_question(), ProblemFactory()
    session = practice_session_start(user=user, problem_set=make_set(question, problem))
    item = session.items.get(question=question)
    practice_reveal(item=item, answer="")
    practice_rate(item=item, rating=Rating.GOOD, covered=[])
    session.refresh_from_db()
    assert session.state == SessionState.ACTIVE
    practice_skip(item=session.items.get(problem=problem))
    session.refresh_from_db()
    assert session.state == SessionState.FINISHED


def test_only_a_real_time_zone_is_remembered():
    user = UserFactory()
    assert study_profile_set_timezone(user=user, timezone_name="Asia/Tokyo") is True
    assert study_profile_set_timezone(user=user, timezone_name="Mars/Olympus") is False
    assert user.study_profile.timezone == "Asia/Tokyo"
