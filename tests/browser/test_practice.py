"""A practice session in a real Chromium at both sizes: Next after every kind of item, skipped items counted
as skipped."""

import pytest
from playwright.sync_api import expect

from interview.models import Drill, PracticeItem, Question
from interview.services.practice import practice_session_start
from tests.browser.test_every_page import SCREENS, Visit
from tests.conftest import ARTIFACTS
from tests.interview.factories import ProblemFactory, UserFactory
from tests.interview.study_support import make_set

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("screen", SCREENS)
def test_next_follows_a_drill_a_question_and_a_problem_and_skipped_items_are_not_counted_done(
    browser, live_server, screen, real_bank
):
    first, last = Question.objects.filter(retired_at=None)[:2]
    drill = Drill.objects.get(title="KV-cache bytes per token")
    problem = ProblemFactory(title="Stable softmax")
    user = UserFactory()
    session = practice_session_start(user=user, problem_set=make_set(first, problem, last, drill))
    visit = Visit(browser, live_server, screen, user)
    page = visit.page
    page.goto(live_server.url + session.get_absolute_url())
    progress = page.locator("[data-session-progress]")
    expect(progress).to_have_text("0 of 4 done")

    # The first question skipped: counted as skipped, and the page moves on.
    page.get_by_role("button", name="Skip this question").click()
    expect(progress).to_have_text("0 of 4 done, 1 skipped")
    nav = page.get_by_role("complementary", name="Items of this session")
    expect(nav.locator("li.is-skipped")).to_have_count(1)
    expect(nav.locator("li.is-done")).to_have_count(0)
    expect(page.get_by_role("heading", level=1)).to_have_text("Stable softmax")

    # Going back to it shows it skipped, with Next.
    nav.get_by_role("link", name=f"Skipped: {first.title}").click()
    expect(page.locator(".pill--skipped")).to_be_visible()
    page.get_by_role("link", name="Next").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Stable softmax")

    page.get_by_role("button", name="Skip for now").click()
    expect(progress).to_have_text("0 of 4 done, 2 skipped")

    # The question answered and rated, then the page moves on to the drill.
    expect(page.get_by_role("heading", level=1)).to_have_text(last.title)
    page.get_by_role("button", name="Reveal the model answer").click()
    page.locator("[data-rating='3']").click()
    expect(progress).to_have_text("1 of 4 done, 2 skipped")

    # The drill estimated: its result, then Next, which leads to the summary as nothing else waits.
    expect(page.get_by_role("heading", level=1)).to_have_text(drill.title)
    attempt = PracticeItem.objects.get(session=session, drill=drill).drill_attempt
    page.locator("#drill-answer").fill(f"{attempt.right_value} {attempt.spec['answer_unit']}")
    page.get_by_role("button", name="Check my estimate").click()
    expect(page.locator("[data-drill-score]")).to_have_text("100%")
    expect(progress).to_have_text("2 of 4 done, 2 skipped")
    page.screenshot(path=ARTIFACTS / f"practice-drill-next-{screen}.png")
    page.get_by_role("link", name="To the summary").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Session complete")
    expect(page.locator(".empty-state")).to_contain_text("2 of 4 items done, 2 skipped.")
    assert not visit.errors, visit.errors
    visit.close()
