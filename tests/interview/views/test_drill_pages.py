"""The drill pages over HTTP: the list, a drill's numbers kept across reloads, answering, and the worked solution."""

import math
import random
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from interview.estimation import units
from interview.models import Drill, DrillAttempt, MockInterviewItem, PracticeItem
from interview.services.content_sync import sync_questions
from interview.services.drills import drill_attempt_answer, drill_attempt_start
from interview.services.mock_interviews import mock_interview_finish, mock_interview_start
from interview.services.practice import practice_session_start
from tests.conftest import ROOT
from tests.interview.drill_support import make_drill, right_answer
from tests.interview.factories import ProblemFactory, QuestionFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def user_client(client):
    client.user = UserFactory()
    client.force_login(client.user)
    return client


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_the_list_shows_the_drills_by_topic(client):
    make_drill(TopicFactory(slug="inference", name="LLM inference"), slug="kv-bytes")
    response = client.get("/drills/")
    assert response.status_code == 200
    assert "LLM inference" in text(response) and 'href="/drills/kv-bytes/"' in response.content.decode()


def test_a_drill_keeps_its_numbers_across_reloads_and_grades_an_answer_with_the_worked_solution(user_client):
    make_drill(TopicFactory())
    first = text(user_client.get("/drills/kv-bytes/"))
    assert text(user_client.get("/drills/kv-bytes/")) == first
    attempt = DrillAttempt.objects.get()
    assert f"{attempt.parameters['layers']} layers" in first

    response = user_client.post(f"/drills/attempts/{attempt.pk}/answer", {"answer": right_answer(attempt)})
    assert response.status_code == 302 and response.url == f"/drills/attempts/{attempt.pk}/"
    page = user_client.get(response.url)
    body = page.content.decode()
    assert re.search(r'data-drill-score>\s*100%', body)
    shown = re.search(r"data-right-answer>([^<]+)<", body)[1]
    assert float(shown.split()[0]) == pytest.approx(attempt.right_value, rel=1e-3)  # the worked value is graded
    assert "bytes = 2 * values" in text(page) and "IEEE 754-2019" in text(page)


def test_an_answer_in_the_wrong_unit_is_refused_with_a_reason_and_kept_in_the_box(user_client):
    make_drill(TopicFactory())
    user_client.get("/drills/kv-bytes/")
    attempt = DrillAttempt.objects.get()
    response = user_client.post(f"/drills/attempts/{attempt.pk}/answer", {"answer": "160 GB/s"})
    assert response.status_code == 400
    assert "is a quantity of information per time, but this drill asks for a quantity of information" in text(response)
    assert 'value="160 GB/s"' in response.content.decode()
    attempt.refresh_from_db()
    assert attempt.score is None and not attempt.answered


def test_another_users_attempt_is_not_found(user_client):
    make_drill(TopicFactory())
    other = UserFactory()
    user_client.force_login(other)
    user_client.get("/drills/kv-bytes/")
    attempt = DrillAttempt.objects.get(user=other)
    user_client.force_login(user_client.user)
    assert user_client.get(f"/drills/attempts/{attempt.pk}/").status_code == 404
    assert user_client.post(f"/drills/attempts/{attempt.pk}/answer", {"answer": "1 KiB"}).status_code == 404


def test_a_practice_session_asks_its_drill_and_shows_the_worked_solution_once_answered(user_client):
    topic = TopicFactory()
    make_drill(topic)
    session = practice_session_start(user=user_client.user, topic=topic)
    item = PracticeItem.objects.select_related("drill_attempt").get(session=session)
    assert "The interviewer asks" in text(user_client.get(session.get_absolute_url()))
    refused = user_client.post(f"/practice/items/{item.pk}/estimate", {"answer": "12 apples"}, follow=True)
    assert "is not a unit I know" in text(refused) and 'value="12 apples"' in refused.content.decode()
    user_client.post(f"/practice/items/{item.pk}/estimate", {"answer": right_answer(item.drill_attempt)})
    page = text(user_client.get(f"{session.get_absolute_url()}?item=1"))
    assert "Worked solution" in page and "100%" in page


def test_the_mock_interview_report_shows_the_estimate_against_the_right_value(user_client):
    for index in range(4):
        QuestionFactory(topic=TopicFactory(slug=f"t{index}"))
    ProblemFactory()
    make_drill(TopicFactory(slug="numbers"))
    interview = mock_interview_start(user=user_client.user, duration_minutes=30, level="mid", rng=random.Random(2))
    item = MockInterviewItem.objects.select_related("drill_attempt").get(interview=interview, drill__isnull=False)
    page = text(user_client.get(item.get_absolute_url()))
    assert "Estimation drill" in page and "Worked solution" not in page
    wrong = item.drill_attempt.right_value * 2
    response = user_client.post(f"{item.get_absolute_url()}estimate", {"answer": f"{wrong} KiB"})
    assert response.status_code == 302
    mock_interview_finish(interview=interview)
    report = text(user_client.get(f"/mock-interviews/{interview.pk}/report/"))
    assert f"Your answer {wrong} KiB" in report
    assert "Worked solution" in report and "Right value" in report


def test_the_practice_dashboard_counts_due_drills_and_offers_their_review(user_client):
    drill = make_drill(TopicFactory())
    attempt = drill_attempt_start(user=user_client.user, drill=drill, now=timezone.now() - timedelta(days=1))
    drill_attempt_answer(attempt=attempt, answer="1 B", now=timezone.now() - timedelta(days=1))  # Again
    page = user_client.get("/practice/").content.decode()
    assert 'data-due-drills="1"' in page and "Review what is due (1)" in page
    assert 'disabled title="Nothing is due today"' not in page


# The unit a word of a step's name promises: "weight_bytes" is in bytes, "bits_per_weight" in bits per parameter.
UNIT_WORDS = {"bytes": "B", "bits": "bit", "flops": "FLOP", "seconds": "s", "time": "s", "bandwidth": "B/s",
              "throughput": "token/s", "tokens": "token", "params": "param", "param": "param", "weight": "param"}


def promised_unit(step_name: str) -> str | None:
    """The unit the step's name promises: its last unit word before any "per", over the first after it."""
    words = step_name.split("_")
    cut = words.index("per") if "per" in words else len(words)
    top = [UNIT_WORDS[word] for word in words[:cut] if word in UNIT_WORDS]
    below = [UNIT_WORDS[word] for word in words[cut + 1:] if word in UNIT_WORDS]
    if not top:
        return None
    return f"{top[-1]}/{below[0]}" if below else top[-1]


def is_a_prefixed(unit: str, base: str) -> bool:
    """Whether unit is base with a decimal or binary prefix (GB, KiB for B; not bit for B, nor day for s)."""
    if not units.same_dimension(unit, base):
        return False
    factor = units.convert(1.0, unit, base)
    return any(abs(math.log(factor, prefix) - round(math.log(factor, prefix))) < 1e-9 for prefix in (1000, 1024))


def test_every_shipped_drills_worked_solution_shows_each_step_in_the_unit_its_name_promises(user_client):
    sync_questions(content_dir=ROOT / "problems")
    wrong, checked = [], 0
    for drill in Drill.objects.live():
        attempt = drill_attempt_start(user=user_client.user, drill=drill)
        drill_attempt_answer(attempt=attempt, answer=f"{attempt.right_value} {drill.spec['answer_unit']}".strip())
        page = user_client.get(f"/drills/attempts/{attempt.pk}/").content.decode()
        shown = dict(re.findall(r'<li data-step="(\w+)">.*?= <strong>([^<]+)</strong>', page, flags=re.DOTALL))
        assert list(shown) == [step["name"] for step in drill.spec["steps"]], drill.slug
        for name, quantity in shown.items():
            unit = quantity.split(" ", 1)[1] if " " in quantity else ""
            promised = promised_unit(name)
            if promised is not None:
                checked += 1
                if not unit or not is_a_prefixed(unit, promised):
                    wrong.append(f"{drill.slug}: {name} = {quantity}, not in {promised}")
    assert not wrong, "\n".join(wrong)
    assert checked > 50
