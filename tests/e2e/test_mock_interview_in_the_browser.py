"""A complete mock interview in a real Chromium: one concept answer, one accepted submission judged by a real
worker, the follow-up it opens, a drill, the finish, and the report with its rubric; and an interview whose
clock runs out while the page is open.

The app is served by the live server and judged by a real worker process on the embedded queue, as
scripts/run.sh runs them.
"""

from datetime import timedelta

import pytest
from playwright.sync_api import expect

from interview.models import Drill, MockInterview, Problem, ProblemSet, ProblemSetItem, Question
from interview.selectors.mock_interviews import interview_report
from interview.services.content_sync import sync_questions
from interview.services.follow_up_sync import sync_follow_ups
from interview.services.mock_interviews import mock_interview_start
from tests.conftest import ARTIFACTS, ROOT
from tests.e2e.test_solving_in_the_browser import PASSWORD, type_into_editor
from tests.judging_support import SOFTMAX, SOFTMAX_REFERENCE, filesystem_broker

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.sandbox, pytest.mark.slow]

ANSWER = """FlashAttention splits Q, K and V into tiles that fit in on-chip SRAM and fuses everything into a single
kernel. It uses an online softmax, keeping a running maximum and sum per row and rescaling the partial results,
so the T x T score matrix is never materialised in HBM."""


FOLLOW_UP_ANSWER = "BF16 keeps the fp32 exponent range, so it needs no loss scaling."


@pytest.fixture
def attention_set(content):
    """A published set: the real FlashAttention question, stable-softmax with its follow-ups, then a drill.

    Of softmax's follow-ups, FlashAttention is the set's own first item, so the interview asks only BF16 vs FP16
    after the code."""
    sync_questions(content_dir=ROOT / "problems")
    sync_follow_ups(content_dir=content)
    problem_set = ProblemSet.objects.create(slug="attention-loop", title="Attention loop", is_published=True,
                                            time_budget_minutes=30)
    ProblemSetItem.objects.create(problem_set=problem_set, position=1,
                                  question=Question.objects.get(slug="flash-attention"))
    ProblemSetItem.objects.create(problem_set=problem_set, position=2, problem=Problem.objects.get(slug=SOFTMAX))
    ProblemSetItem.objects.create(problem_set=problem_set, position=3,
                                  drill=Drill.objects.get(slug="kv-cache-per-token"))
    return problem_set


def log_in(page, live_server, next_path: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/?next={next_path}")
    page.get_by_label("Username").fill("grace")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def test_a_mock_interview_with_an_answer_code_its_follow_up_and_a_drill_ends_in_the_rubric_report(
    page, live_server, attention_set, start_worker, web_publishes_to, django_user_model, tmp_path
):
    queue_dir = tmp_path / "queue"
    url, options = filesystem_broker(queue_dir)
    web_publishes_to(url, options)
    start_worker(url, queue_dir=queue_dir)
    django_user_model.objects.create_user("grace", password=PASSWORD)
    page.on("dialog", lambda dialog: dialog.accept())

    log_in(page, live_server, "/sets/attention-loop/")
    page.get_by_role("button", name="Start the clock").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("FlashAttention")
    expect(page.locator("[data-clock-value]")).to_contain_text("29:")

    page.locator("#answer").fill(ANSWER)
    expect(page.locator("[data-save-state]")).to_contain_text("Draft saved")
    page.reload()  # a reload resumes: the draft is back, the clock still counts down from the same end
    expect(page.locator("#answer")).to_have_value(ANSWER)
    page.get_by_role("button", name="Submit the answer").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Numerically stable softmax")
    interview = MockInterview.objects.get()
    # The follow-up waits for the code, and shows nothing of its question until then.
    page.goto(f"{live_server.url}/mock-interviews/{interview.pk}/items/3/")
    expect(page.locator("[data-follow-up-waiting]")).to_contain_text("submit “Numerically stable softmax”")
    page.get_by_role("link", name="Back to Numerically stable softmax").click()
    type_into_editor(page, SOFTMAX_REFERENCE)
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("[data-run-panel] .verdict")).to_have_text("Accepted", timeout=180_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "mock-interview-coding.png", full_page=True)

    page.get_by_role("link", name="Next → Item 3").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("BF16 vs FP16")
    expect(page.locator("[data-follow-up-of]")).to_have_text("Follow-up to Numerically stable softmax")
    page.locator("#answer").fill(FOLLOW_UP_ANSWER)
    page.get_by_role("button", name="Submit the answer").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("KV-cache bytes per token")
    attempt = interview.items.get(position=4).drill_attempt
    page.locator("#drill-answer").fill(f"{attempt.right_value} KiB")
    page.get_by_role("button", name="Submit the estimate").click()
    expect(page.locator(".messages")).to_contain_text("Estimate saved")

    page.get_by_role("button", name="Finish").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Attention loop")
    question, problem, follow_up, drill = page.locator("[data-report-item]").all()
    expect(follow_up).to_have_attribute("data-follows", "2")
    expect(follow_up).to_contain_text("Follow-up to 2. Numerically stable softmax")
    expect(follow_up.locator("[data-user-answer]")).to_contain_text("no loss scaling")
    expect(drill.locator("[data-item-score]")).to_have_text("100%")
    expect(question.locator("[data-user-answer]")).to_contain_text("online softmax")
    expect(question.locator(".kp--covered")).to_have_count(2)
    expect(question.locator("legend")).to_contain_text("2 of 5 covered")
    expect(problem.locator("[data-verdict]")).to_have_text("Accepted")
    expect(problem.locator("[data-item-score]")).to_have_text("100%")
    expect(problem).to_contain_text("against the reference's")
    report = interview_report(interview=interview)
    follow_up_score = report.items[2].score
    assert follow_up_score > 0
    # (2/5 + 2 × 1 + the follow-up's share + 1) / 5
    expect(page.locator("[data-score]")).to_have_text(f"{round(100 * (2 / 5 + 3 + follow_up_score) / 5)}%")
    concepts = page.locator('[data-dimension="Concepts covered"]')
    expect(concepts).to_contain_text("BF16 vs FP16")
    expect(concepts.locator("[data-dimension-rating]")).to_have_text(f"{round(100 * (2 / 5 + follow_up_score) / 2)}%")
    expect(page.locator('[data-dimension="Estimation accuracy"] [data-dimension-rating]')).to_have_text("100%")
    expect(page.locator('[data-dimension="Correctness of code"] [data-dimension-rating]')).to_have_text("100%")
    expect(page.get_by_role("button", name="Practise Attention and Transformers")).to_be_visible()
    page.screenshot(path=ARTIFACTS / "mock-interview-report.png", full_page=True)

    interview.refresh_from_db()
    assert interview.state == "finished" and interview.finished_at < interview.ends_at


def test_when_the_clock_runs_out_the_page_closes_its_answers_and_opens_the_report(
    page, live_server, transactional_db, django_user_model
):
    sync_questions(content_dir=ROOT / "problems")
    user = django_user_model.objects.create_user("grace", password=PASSWORD)
    problem_set = ProblemSet.objects.create(slug="short", title="Short", is_published=True)
    ProblemSetItem.objects.create(problem_set=problem_set, position=1, question=Question.objects.get(slug="dropout"))
    # The only way to get a clock this short: the service takes a duration; the pages offer 30 to 90 minutes.
    interview = mock_interview_start(user=user, duration_minutes=30, problem_set=problem_set,
                                     duration=timedelta(seconds=8))
    log_in(page, live_server, f"/mock-interviews/{interview.pk}/items/1/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Dropout")
    page.locator("#answer").fill("Dropout zeroes activations at random during training.")
    expect(page.locator("[data-time-up]")).to_be_visible(timeout=15_000)
    expect(page.locator("#answer")).to_be_disabled()
    expect(page.locator("[data-clock-value]")).to_have_text("00:00")
    expect(page).to_have_url(f"{live_server.url}/mock-interviews/{interview.pk}/report/", timeout=15_000)
    expect(page.locator("[data-score]")).to_have_text("0%")
    # Going back to the question does not reopen it.
    page.goto(f"{live_server.url}/mock-interviews/{interview.pk}/items/1/")
    expect(page).to_have_url(f"{live_server.url}/mock-interviews/{interview.pk}/report/")
    expect(page.locator(".messages")).to_contain_text("This interview is over")
