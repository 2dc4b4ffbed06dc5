"""The report's rubric: each dimension rated from the interview's evidence, or "not assessed", never zero."""

import random
import re

import pytest

from interview.models import JudgementTest, MockInterviewItem
from interview.selectors.mock_interviews import interview_report
from interview.selectors.rubric import interview_rubric
from interview.services.mock_interviews import mock_interview_answer, mock_interview_estimate, mock_interview_start
from tests.interview.drill_support import make_drill
from tests.interview.factories import ProblemFactory, QuestionFactory, SubmissionFactory, TopicFactory, UserFactory
from tests.interview.study_support import clock, make_set  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db

POINTS = [{"text": "Online softmax", "phrasings": ["online softmax"]},
          {"text": "Tiles in SRAM", "phrasings": ["tile sram"]},
          {"text": "Recompute in backward", "phrasings": ["recompute backward"]},
          {"text": "IO-aware", "phrasings": ["io aware"]}]


def submitted(item: MockInterviewItem, *, verdict: str, passed: int, **figures):
    submission = SubmissionFactory(user=item.interview.user, problem=item.problem, verdict=verdict, tests_total=4,
                                   **figures)
    item.attempts.create(submission=submission)
    for index in range(4):
        JudgementTest.objects.create(judgement=submission.judgement, index=index, name=f"t{index}",
                                     status="passed" if index < passed else "wrong_answer")


def rubric_of(interview) -> dict:
    return {dimension.name: dimension for dimension in interview_rubric(report=interview_report(interview=interview))}


def test_each_dimension_is_rated_from_its_items_and_the_weakest_links_to_practice(clock):
    for index in range(4):
        QuestionFactory(topic=TopicFactory(slug=f"t{index}"), key_points=POINTS, title=f"Question {index}")
    ProblemFactory(title="Stable softmax")
    make_drill(TopicFactory(slug="numbers"))
    interview = mock_interview_start(user=UserFactory(), duration_minutes=30, level="mid", rng=random.Random(4))
    items = list(interview.items.select_related("interview", "question", "drill_attempt", "problem"))
    mock_interview_answer(item=items[0], answer="An online softmax over tiles in SRAM.")
    drill_item = next(item for item in items if item.drill_id)
    mock_interview_estimate(item=drill_item, answer=f"{drill_item.drill_attempt.right_value} KiB")
    submitted(next(item for item in items if item.problem_id), verdict="accepted", passed=4, time_ratio=2.0,
              memory_ratio=0.8)
    clock.advance(minutes=31)

    rubric = rubric_of(interview)
    assert rubric["Correctness of code"].rating == 1.0
    assert rubric["Correctness of code"].evidence == ["Stable softmax: accepted, 4 of 4 tests"]
    assert rubric["Efficiency of code"].rating == pytest.approx((1 / 2.0 + 1.0) / 2)
    assert rubric["Efficiency of code"].evidence == [
        "Stable softmax: 2× the reference's time, 0.8× the reference's peak memory"]
    assert rubric["Concepts covered"].rating == pytest.approx(2 / 4 / 4)  # one of four answered, half covered
    assert rubric["Estimation accuracy"].rating == 1.0
    weakest = rubric["Concepts covered"]
    assert weakest.practice is not None and weakest.practice[1].startswith("/questions/?topic=")
    assert [name for name, d in rubric.items() if d.practice] == ["Concepts covered"]


def test_a_dimension_the_interview_gave_no_evidence_for_is_not_assessed(clock):
    question = QuestionFactory(key_points=POINTS)
    interview = mock_interview_start(user=UserFactory(), duration_minutes=30, problem_set=make_set(question))
    clock.advance(minutes=31)
    rubric = rubric_of(interview)
    assert [name for name, d in rubric.items() if not d.assessed] == [
        "Correctness of code", "Efficiency of code", "Estimation accuracy"]
    assert all(d.rating is None and d.percent is None for d in rubric.values() if not d.assessed)
    assert rubric["Concepts covered"].rating == 0.0  # asked and not answered: evidence of nothing covered


def test_code_that_was_never_accepted_rates_correctness_but_leaves_efficiency_unassessed(clock):
    interview = mock_interview_start(user=UserFactory(), duration_minutes=30,
                                     problem_set=make_set(ProblemFactory(title="SwiGLU")))
    submitted(interview.items.select_related("interview", "problem").get(), verdict="wrong_answer", passed=1,
              time_ratio=0.5)
    clock.advance(minutes=31)
    rubric = rubric_of(interview)
    assert rubric["Correctness of code"].rating == 0.25
    assert rubric["Correctness of code"].practice[0] == "Solve SwiGLU again"
    assert not rubric["Efficiency of code"].assessed


def test_the_report_page_shows_the_rubric_with_not_assessed(client, clock):
    user = UserFactory()
    client.force_login(user)
    interview = mock_interview_start(user=user, duration_minutes=30, problem_set=make_set(QuestionFactory()))
    clock.advance(minutes=31)
    page = client.get(f"/mock-interviews/{interview.pk}/report/").content.decode()
    assert page.count('data-dimension-rating><span class="muted">not assessed') == 3
    assert re.search(r'data-dimension="Concepts covered">.*?data-dimension-rating>0%', page, re.S)
