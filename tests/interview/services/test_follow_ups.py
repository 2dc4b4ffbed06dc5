"""Follow-ups after code: synced from problem.toml, then asked in a mock interview after the coding item, in order,
under the same clock, and reported under the problem they follow."""

import random
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from interview.content.errors import ContentError
from interview.models import MockInterviewItem, Problem, ProblemFollowUp, ProblemSetItem, Question
from interview.models.mock_interviews import DURATIONS, durations_for
from interview.selectors.mock_interviews import interview_report
from interview.selectors.problem_sets import published_sets_with_follow_ups
from interview.selectors.rubric import interview_rubric
from interview.services.follow_up_sync import sync_follow_ups
from interview.services.mock_interviews import (
    InterviewError, InterviewOver, mock_interview_answer, mock_interview_estimate, mock_interview_start,
    mock_interview_submit,
)
from tests.conftest import ROOT
from tests.interview.drill_support import make_drill, right_answer
from tests.interview.factories import ProblemFactory, QuestionFactory, TopicFactory, UserFactory
from tests.interview.study_support import clock, make_set  # noqa: F401  (a fixture)
from tests.judging_support import SOFTMAX, content_with

pytestmark = pytest.mark.django_db

POINTS = [{"text": "Quadratic scores", "phrasings": ["quadratic scores"]},
          {"text": "Tiles in SRAM", "phrasings": ["tiles sram"]},
          {"text": "Online softmax", "phrasings": ["online softmax"]}]


def write_follow_ups(root, slug: str, follow_ups: str) -> None:
    package = root / slug
    package.mkdir(parents=True, exist_ok=True)
    (package / "problem.toml").write_text(f'title = "{slug}"\nfollow_ups = {follow_ups}\n')


@pytest.fixture
def attention(tmp_path):
    """A problem whose problem.toml names a question and then a drill, synced."""
    topic = TopicFactory()
    problem = ProblemFactory(slug="mhsa", title="Multi-head self-attention")
    question = QuestionFactory(slug="attention-memory-quadratic", topic=topic, key_points=POINTS)
    drill = make_drill(topic, slug="attention-score-memory")
    write_follow_ups(tmp_path, "mhsa", '["attention-memory-quadratic", "attention-score-memory"]')
    sync_follow_ups(content_dir=tmp_path)
    return problem, question, drill


def items_of(interview) -> list[MockInterviewItem]:
    return list(MockInterviewItem.objects.filter(interview=interview)
                .select_related("interview", "question", "problem", "drill", "drill_attempt", "follows"))


def submit(item) -> None:
    mock_interview_submit(item=item, source="def solve(x):\n    return x\n", suite="all")


# ---- The sync ---------------------------------------------------------------------------------------------


def test_the_sync_keeps_each_problems_follow_ups_in_their_order_and_a_second_sync_changes_nothing(attention):
    problem, question, drill = attention
    assert [follow_up.target for follow_up in problem.follow_ups.all()] == [question, drill]
    assert list(question.follow_up_of.values_list("problem__slug", flat=True)) == ["mhsa"]


def test_an_unknown_follow_up_stops_the_sync_naming_it_and_changes_nothing(attention, tmp_path):
    write_follow_ups(tmp_path, "mhsa", '["attention-score-memory", "no-such-question"]')
    with pytest.raises(ContentError, match=r"mhsa/problem.toml: follow_ups\[2\]: no live question or drill "
                                           r"'no-such-question'"):
        sync_follow_ups(content_dir=tmp_path)
    problem, question, drill = attention
    assert [follow_up.target for follow_up in problem.follow_ups.all()] == [question, drill]


@pytest.mark.parametrize(("listed", "says"), [
    ('["a", "b", "c", "d"]', "names 4; an interviewer asks at most 3"),
    ('["flash-attention", "flash-attention"]', "'flash-attention' is listed twice"),
    ('"flash-attention"', "must be a list"),
    ('["Flash Attention"]', "is not an id"),
])
def test_a_malformed_follow_up_list_is_refused_before_anything_is_read(tmp_path, listed, says):
    write_follow_ups(tmp_path, "mhsa", listed)
    with pytest.raises(ContentError, match=says):
        sync_follow_ups(content_dir=tmp_path)


def test_sync_content_with_an_unknown_follow_up_stops_with_nothing_changed(content):
    # The bank holds one question, and none of the ids stable-softmax's problem.toml names.
    content.write_question("sdpa")
    content_with(content.root, SOFTMAX)
    with pytest.raises(CommandError, match="(?s)no live question or drill 'bf16-vs-fp16'.*Nothing was changed"):
        call_command("sync_content", "--content-dir", str(content.root), stdout=StringIO())
    assert not Problem.objects.exists() and not Question.objects.exists()


def test_every_shipped_problem_names_two_or_three_follow_ups_and_the_shipped_sets_ask_drills():
    call_command("sync_content", "--content-dir", str(ROOT / "problems"), stdout=StringIO())
    counts = {problem.slug: problem.follow_ups.count() for problem in Problem.objects.live()}
    assert counts and all(2 <= count <= 3 for count in counts.values()), counts
    assert ProblemFollowUp.objects.filter(drill__isnull=False).exists()
    sets_with_drills = set(ProblemSetItem.objects.filter(drill__isnull=False)
                           .values_list("problem_set__slug", flat=True))
    assert {"precision-and-memory", "distributed-training", "inference-systems",
            "nvidia-deep-learning-loop"} <= sets_with_drills


def test_every_shipped_set_lists_the_length_of_its_interview_and_can_be_sat_for_its_time_budget(client):
    call_command("sync_content", "--content-dir", str(ROOT / "problems"), stdout=StringIO())
    user = UserFactory()
    client.force_login(user)
    listed = client.get("/sets/").content.decode()
    sets = published_sets_with_follow_ups()
    assert sets and any(problem_set.follow_up_count for problem_set in sets)
    for problem_set in sets:
        interview = mock_interview_start(user=user, duration_minutes=problem_set.time_budget_minutes,
                                         problem_set=problem_set)
        assert interview.items.count() == len(problem_set.live_items) + problem_set.follow_up_count
        assert interview.ends_at - interview.started_at == timedelta(minutes=problem_set.time_budget_minutes)
        if problem_set.follow_up_count:
            assert f"{problem_set.follow_up_count} follow-up" in listed
    assert max(problem_set.time_budget_minutes for problem_set in sets) > max(DURATIONS)


def test_a_set_without_a_time_budget_offers_the_usual_durations_only():
    problem_set = make_set(QuestionFactory())
    assert durations_for(problem_set) == DURATIONS
    with pytest.raises(InterviewError, match="Pick a duration of 30, 45, 60, 90 minutes"):
        mock_interview_start(user=UserFactory(), duration_minutes=150, problem_set=problem_set)


# ---- In a mock interview ----------------------------------------------------------------------------------


def test_follow_ups_are_asked_after_the_coding_item_in_order(clock, attention):
    problem, question, drill = attention
    opener = QuestionFactory()
    interview = mock_interview_start(user=UserFactory(), duration_minutes=30, problem_set=make_set(opener, problem))
    first, coding, follow_up, estimate = items_of(interview)
    assert (first.question, coding.problem, follow_up.question, estimate.drill) == (opener, problem, question, drill)
    assert (first.follows, follow_up.follows, estimate.follows) == (None, coding, coding)

    with pytest.raises(InterviewError, match="submit “Multi-head self-attention” \\(item 2\\) first"):
        mock_interview_answer(item=follow_up, answer="Quadratic scores.")
    submit(coding)
    with pytest.raises(InterviewError, match="asked in order: answer item 3 first"):
        mock_interview_estimate(item=estimate, answer=right_answer(estimate.drill_attempt))
    assert not items_of(interview)[3].answered_at

    mock_interview_answer(item=follow_up, answer="The quadratic scores; FlashAttention keeps tiles in SRAM.")
    mock_interview_estimate(item=items_of(interview)[3], answer=right_answer(estimate.drill_attempt))

    report = interview_report(interview=interview)
    assert [entry.item.follows_id for entry in report.items] == [None, None, coding.pk, coding.pk]
    rubric = {dimension.name: dimension for dimension in interview_rubric(report=report)}
    assert rubric["Concepts covered"].ratings == [0.0, 2 / 3]
    assert rubric["Estimation accuracy"].ratings == [1.0]


def test_the_clock_running_out_ends_the_follow_ups_too(clock, attention):
    problem, _, _ = attention
    interview = mock_interview_start(user=UserFactory(), duration_minutes=30, problem_set=make_set(problem))
    coding, follow_up, estimate = items_of(interview)
    submit(coding)
    clock.advance(minutes=30)
    with pytest.raises(InterviewOver):
        mock_interview_answer(item=follow_up, answer="Quadratic scores.")
    with pytest.raises(InterviewOver):
        mock_interview_estimate(item=estimate, answer=right_answer(estimate.drill_attempt))
    assert not any(item.answered_at for item in items_of(interview))


def test_a_follow_up_the_interview_asks_anyway_is_asked_once_where_it_was(clock, attention):
    problem, question, drill = attention
    interview = mock_interview_start(user=UserFactory(), duration_minutes=30,
                                     problem_set=make_set(problem, question))
    asked = [(item.question or item.problem or item.drill, item.follows_id is not None)
             for item in items_of(interview)]
    assert asked == [(problem, False), (drill, True), (question, False)]


def test_a_drill_in_a_set_is_played_in_its_place_and_graded(clock):
    topic = TopicFactory()
    drill, question = make_drill(topic), QuestionFactory(topic=topic)
    interview = mock_interview_start(user=UserFactory(), duration_minutes=30, problem_set=make_set(drill, question),
                                     now=clock.now)
    estimate, concept = items_of(interview)
    assert (estimate.drill, concept.question) == (drill, question)
    mock_interview_estimate(item=estimate, answer=right_answer(estimate.drill_attempt))
    clock.advance(minutes=1)
    assert interview_report(interview=interview, now=clock.now + timedelta(minutes=30)).items[0].score == 1.0


def test_a_follow_ups_page_before_the_code_says_what_comes_first_and_hides_the_question(client, clock, attention):
    problem, question, _ = attention
    interview = mock_interview_start(user=UserFactory(), duration_minutes=30, problem_set=make_set(problem))
    client.force_login(interview.user)
    coding, follow_up, _ = items_of(interview)
    page = client.get(follow_up.get_absolute_url()).content.decode()
    assert "submit “Multi-head self-attention” (item 1) first" in page and question.prompt not in page
    submit(coding)
    assert question.prompt in client.get(follow_up.get_absolute_url()).content.decode()


def test_a_question_and_a_drill_list_the_problems_they_follow_up(client, attention):
    problem, question, drill = attention
    client.force_login(UserFactory())
    assert problem.get_absolute_url() in client.get(question.get_absolute_url()).content.decode()
    assert problem.get_absolute_url() in client.get(drill.get_absolute_url()).content.decode()


def test_a_problems_page_lists_its_follow_ups_in_order(client, attention):
    problem, question, drill = attention
    page = client.get(problem.get_absolute_url()).content.decode()
    listed = page[page.index("data-follow-ups"):]
    assert listed.index(question.get_absolute_url()) < listed.index(drill.get_absolute_url())


def test_a_generated_loop_asks_the_follow_ups_after_the_code_never_before_it(clock, attention):
    problem, question, drill = attention
    opener, loop_drill = QuestionFactory(), make_drill(question.topic, slug="kv-bytes")
    interview = mock_interview_start(user=UserFactory(), duration_minutes=30, level="mid", rng=random.Random(7))
    asked = [(item.question or item.problem or item.drill, item.follows_id is not None)
             for item in items_of(interview)]
    assert asked == [(opener, False), (loop_drill, False), (problem, False), (question, True), (drill, True)]
