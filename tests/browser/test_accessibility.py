"""The code editor by a screen reader's conventions, in a real Chromium: a name, Escape then Tab to leave it,
and a verdict announced in a few words rather than the results panel read again.

axe-core's check of every page is in test_every_page.py."""

import pytest
from playwright.sync_api import expect

from interview.models import Submission
from tests.browser.test_every_page import Visit
from tests.interview.factories import ProblemFactory, UserFactory, judged_as

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_editor_has_a_name_escape_then_tab_leaves_it_and_the_verdict_is_announced(browser, live_server):
    problem = ProblemFactory()
    user = UserFactory()
    visit = Visit(browser, live_server, "desktop", user)
    page = visit.page
    page.goto(live_server.url + problem.get_absolute_url())
    editor = page.get_by_role("textbox", name="solution.py")
    editor.click()
    page.keyboard.press("Tab")  # indents: the focus stays
    expect(editor).to_be_focused()
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    run = page.get_by_role("button", name="Run")
    expect(run).to_be_focused()

    page.keyboard.press("Enter")
    announcement = page.locator("[data-run-announce]")
    expect(announcement).to_have_attribute("role", "status")
    expect(announcement).to_have_text("Queued…")
    judged_as(Submission.objects.get(user=user), verdict="wrong_answer", tests=(
        {"name": "small", "status": "wrong_answer", "message": "the output differs at [0, 1]"},))
    expect(announcement).to_have_text("Wrong answer. 0 of 1 tests passed. First failure: small, wrong answer.")
    # The panel itself is not a live region, so its redraws are not read out whole.
    assert page.locator("[data-run-panel]").get_attribute("aria-live") is None
    assert not visit.errors, visit.errors
    visit.close()
