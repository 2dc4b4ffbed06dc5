"""Mock interviews on the server's clock: what is refused after the end, time accounting, and the score."""

import random
from datetime import timedelta

import pytest

from interview.models import (InterviewState, JudgementTest, MockInterview, MockInterviewItem, ProblemDraft,
                              Submission)
from interview.selectors.mock_interviews import generated_loop, interview_report
from interview.services.mock_interviews import (
    InterviewError, InterviewOver, mock_interview_answer, mock_interview_correct, mock_interview_finish,
    mock_interview_open, mock_interview_save_draft, mock_interview_start, mock_interview_submit,
)
from interview.services.problems import draft_save
from tests.interview.factories import ProblemFactory, QuestionFactory, SubmissionFactory, TopicFactory, UserFactory
from tests.interview.study_support import START, clock, make_set  # noqa: F401  (a fixture)
from tests.judging_support import SOFTMAX_REFERENCE

pytestmark = pytest.mark.django_db

POINTS = [{"text": "Online softmax", "phrasings": ["online softmax"]},
          {"text": "Tiles in SRAM", "phrasings": ["tile sram"]},
          {"text": "Recompute in backward", "phrasings": ["recompute backward"]},
          {"text": "IO-aware", "phrasings": ["io aware"]}]


def interview_of(*targets, minutes: int = 30) -> MockInterview:
    return mock_interview_start(user=UserFactory(), duration_minutes=minutes, problem_set=make_set(*targets))


def item(interview: MockInterview, position: int) -> MockInterviewItem:
    return MockInterviewItem.objects.select_related("interview", "question", "problem").get(
        interview=interview, position=position)


# ---- The clock ------------------------------------------------------------------------------------------


def test_the_end_is_fixed_when_the_interview_starts(clock):
    interview = interview_of(QuestionFactory(), minutes=45)
    assert (interview.started_at, interview.ends_at) == (START, START + timedelta(minutes=45))


def test_an_answer_before_the_end_counts_and_one_after_the_end_is_refused(clock):
    interview = interview_of(QuestionFactory(key_points=POINTS))
    clock.advance(minutes=29, seconds=59)
    mock_interview_answer(item=item(interview, 1), answer="An online softmax over tiles in SRAM.")
    clock.advance(seconds=1)
    with pytest.raises(InterviewOver, match="Time is up: this interview ended at 09:30:00 UTC"):
        mock_interview_answer(item=item(interview, 1), answer="A better answer, too late.")
    assert item(interview, 1).answer == "An online softmax over tiles in SRAM."


def test_a_late_answer_is_refused_even_when_the_page_read_the_interview_before_the_end(clock):
    interview = interview_of(QuestionFactory(key_points=POINTS))
    stale = item(interview, 1)  # loaded while the clock still ran
    clock.advance(minutes=31)
    with pytest.raises(InterviewOver):
        mock_interview_answer(item=stale, answer="late")
    with pytest.raises(InterviewOver):
        mock_interview_save_draft(item=stale, draft="late")
    assert item(interview, 1).answer == "" and item(interview, 1).draft == ""


def test_nothing_is_accepted_after_finishing_early(clock):
    interview = interview_of(QuestionFactory(key_points=POINTS))
    clock.advance(minutes=5)
    mock_interview_finish(interview=interview)
    with pytest.raises(InterviewOver):
        mock_interview_answer(item=item(interview, 1), answer="after finishing")
    interview.refresh_from_db()
    assert (interview.state, interview.finished_at) == (InterviewState.FINISHED, START + timedelta(minutes=5))


def test_a_reload_resumes_without_extending_the_clock_and_starting_again_makes_a_new_interview(clock):
    interview = interview_of(QuestionFactory(), QuestionFactory())
    clock.advance(minutes=20)
    mock_interview_open(item=item(interview, 2))  # what every load of an item page records
    clock.advance(minutes=1)
    mock_interview_open(item=item(interview, 2))
    again = mock_interview_start(user=interview.user, duration_minutes=30, problem_set=interview.problem_set)
    interview.refresh_from_db()
    assert interview.ends_at == START + timedelta(minutes=30)
    assert again.pk != interview.pk and again.ends_at == clock.now + timedelta(minutes=30)
    clock.advance(minutes=10)
    with pytest.raises(InterviewOver):
        mock_interview_answer(item=item(interview, 1), answer="the old one still ended")
    mock_interview_answer(item=item(again, 1), answer="the new one runs")


def test_a_submission_after_the_end_is_refused_and_none_is_made(clock, softmax, embedded_queue,
                                                                django_capture_on_commit_callbacks):
    interview = interview_of(softmax)
    with django_capture_on_commit_callbacks(execute=True):
        created = mock_interview_submit(item=item(interview, 1), source=SOFTMAX_REFERENCE, suite="all")
    assert created.submission.mock_interview_attempt.item == item(interview, 1)
    assert embedded_queue.taken() == [created.submission.pk]
    clock.advance(minutes=30)
    with pytest.raises(InterviewOver):
        mock_interview_submit(item=item(interview, 1), source=SOFTMAX_REFERENCE, suite="all")
    assert Submission.objects.count() == 1


def test_a_submission_in_an_interview_leaves_the_problem_pages_draft_alone(clock, softmax, embedded_queue):
    interview = interview_of(softmax)
    draft_save(user=interview.user, problem=softmax, source="# half-written elsewhere\n")
    mock_interview_submit(item=item(interview, 1), source=SOFTMAX_REFERENCE, suite="all")
    assert ProblemDraft.objects.get(user=interview.user, problem=softmax).source == "# half-written elsewhere\n"


def test_only_the_durations_offered_can_be_picked(clock):
    with pytest.raises(InterviewError, match="30, 45, 60, 90"):
        mock_interview_start(user=UserFactory(), duration_minutes=600, problem_set=make_set(QuestionFactory()))


# ---- Time per item --------------------------------------------------------------------------------------


def test_time_spent_is_accounted_from_which_item_was_open_and_closes_at_the_end(clock):
    interview = interview_of(QuestionFactory(), QuestionFactory())
    mock_interview_open(item=item(interview, 1))
    clock.advance(minutes=4)
    mock_interview_open(item=item(interview, 2))
    clock.advance(minutes=3)
    mock_interview_open(item=item(interview, 1))
    clock.advance(minutes=60)  # the clock ran out 23 minutes after the last switch
    report = interview_report(interview=interview)
    assert [entry.seconds for entry in report.items] == [(4 + 23) * 60, 3 * 60]
    mock_interview_finish(interview=interview)
    assert [entry.seconds for entry in interview_report(interview=interview).items] == [(4 + 23) * 60, 3 * 60]
    assert item(interview, 1).opened_at == START


# ---- The report and its score ---------------------------------------------------------------------------


def judged(submission: Submission, passed: int) -> Submission:
    for index in range(submission.tests_total):
        JudgementTest.objects.create(judgement=submission.judgement, index=index, name=f"t{index}",
                                     status="passed" if index < passed else "wrong_answer")
    return submission


def attempt(interview_item: MockInterviewItem, *, verdict: str, passed: int, **fields) -> Submission:
    submission = SubmissionFactory(user=interview_item.interview.user, problem=interview_item.problem,
                                   verdict=verdict, tests_total=4, **fields)
    interview_item.attempts.create(submission=submission)
    return judged(submission, passed)


def test_the_score_follows_the_written_formula(clock):
    interview = interview_of(QuestionFactory(key_points=POINTS), QuestionFactory(), ProblemFactory())
    mock_interview_answer(item=item(interview, 1), answer="An online softmax, with tiles kept in SRAM.")
    attempt(item(interview, 3), verdict="wrong_answer", passed=3)
    clock.advance(minutes=30)
    report = interview_report(interview=interview)
    scores = [entry.score for entry in report.items]
    # 2 of 4 key points; nothing answered; half of the 3/4 of tests passed, the problem counting twice.
    assert scores == [0.5, 0.0, 0.375]
    assert report.score == pytest.approx((0.5 + 0 + 2 * 0.375) / 4)


def test_an_accepted_submission_scores_one_and_one_made_after_the_end_does_not_count(clock):
    interview = interview_of(ProblemFactory())
    attempt(item(interview, 1), verdict="wrong_answer", passed=1)
    late = attempt(item(interview, 1), verdict="accepted", passed=4)
    Submission.objects.filter(pk=late.pk).update(created_at=START + timedelta(minutes=31))
    clock.advance(minutes=40)
    [entry] = interview_report(interview=interview).items
    assert entry.score == pytest.approx(0.5 * 1 / 4)
    assert entry.submission.judgement.verdict == "wrong_answer"


def test_correcting_the_key_points_on_the_report_changes_the_score(clock):
    interview = interview_of(QuestionFactory(key_points=POINTS))
    mock_interview_answer(item=item(interview, 1), answer="An online softmax.")
    with pytest.raises(InterviewError, match="once the interview is over"):
        mock_interview_correct(item=item(interview, 1), covered=[0, 1, 2, 3])
    clock.advance(minutes=30)
    assert interview_report(interview=interview).percent == 25
    mock_interview_correct(item=item(interview, 1), covered=[0, 1, 2, 9])
    report = interview_report(interview=interview)
    assert report.percent == 75
    assert [point["covered"] for point in report.items[0].key_points] == [True, True, True, False]
    assert item(interview, 1).corrected is True


def test_the_weakest_topics_come_first_and_fully_covered_ones_are_left_out(clock):
    strong, weak = TopicFactory(name="Strong"), TopicFactory(name="Weak")
    interview = interview_of(QuestionFactory(topic=strong, key_points=POINTS[:1]),
                             QuestionFactory(topic=weak, key_points=POINTS))
    mock_interview_answer(item=item(interview, 1), answer="online softmax")
    mock_interview_answer(item=item(interview, 2), answer="online softmax")
    clock.advance(minutes=30)
    assert [(w.topic, w.percent) for w in interview_report(interview=interview).weakest] == [(weak, 25)]


# ---- The generated loop ---------------------------------------------------------------------------------


def test_a_generated_loop_asks_four_questions_from_four_topics_and_problems_at_the_level(clock):
    for n in range(6):
        topic = TopicFactory()
        for difficulty in ("easy", "medium", "hard"):
            QuestionFactory(topic=topic, difficulty=difficulty, slug=f"q-{n}-{difficulty}")
    for difficulty in ("easy", "medium", "hard"):
        ProblemFactory(difficulty=difficulty)
    loop = generated_loop(level="senior", duration_minutes=60, rng=random.Random(7))
    questions = [question for question, _ in loop if question]
    problems = [problem for _, problem in loop if problem]
    assert len(questions) == 4 and len({question.topic_id for question in questions}) == 4
    assert {question.difficulty for question in questions} == {"hard"}
    assert [problem.difficulty for problem in problems] == ["hard", "medium"]
    junior = generated_loop(level="junior", duration_minutes=30, rng=random.Random(7))
    assert [problem.difficulty for _, problem in junior if problem] == ["easy"]
    assert {question.difficulty for question, _ in junior if question} == {"easy"}


def topical_problem(difficulty: str, *topics) -> None:
    ProblemFactory(difficulty=difficulty).topics.set(topics)


def drawn_problems(level: str, seed: int) -> list:
    return [problem for _, problem in generated_loop(level=level, duration_minutes=60, rng=random.Random(seed))
            if problem]


def test_a_generated_loops_problems_cover_different_topics_where_the_level_allows(clock):
    QuestionFactory()
    attention, parallelism, inference = TopicFactory(), TopicFactory(), TopicFactory()
    for _ in range(3):
        topical_problem("hard", attention)
    topical_problem("hard", attention, inference)
    topical_problem("hard", parallelism)
    for seed in range(25):
        first, second = drawn_problems("senior", seed)
        assert {first.difficulty, second.difficulty} == {"hard"}
        assert not set(first.topics.all()) & set(second.topics.all()), seed


def test_the_spread_takes_another_difficulty_of_the_level_for_a_new_topic_but_never_one_outside_it(clock):
    QuestionFactory()
    attention, parallelism, inference = TopicFactory(), TopicFactory(), TopicFactory()
    topical_problem("easy", attention)
    topical_problem("easy", attention)
    topical_problem("medium", parallelism)
    topical_problem("hard", inference)  # a new topic too, but junior draws easy and medium only
    for seed in range(10):
        first, second = drawn_problems("junior", seed)
        assert (first.difficulty, second.difficulty) == ("easy", "medium"), seed
        assert list(second.topics.all()) == [parallelism]


def test_when_every_problem_shares_a_topic_the_loop_still_draws_by_level(clock):
    QuestionFactory()
    attention = TopicFactory()
    for difficulty in ("easy", "medium", "hard"):
        topical_problem(difficulty, attention)
    assert [problem.difficulty for problem in drawn_problems("senior", 7)] == ["hard", "medium"]


def test_the_same_seed_draws_the_same_problems(clock):
    QuestionFactory()
    topics = [TopicFactory() for _ in range(4)]
    for index in range(8):
        topical_problem("medium", topics[index % 4], topics[(index + 1) % 4])
    for seed in range(5):
        assert drawn_problems("mid", seed) == drawn_problems("mid", seed)
    assert len({tuple(problem.pk for problem in drawn_problems("mid", seed)) for seed in range(20)}) > 1
