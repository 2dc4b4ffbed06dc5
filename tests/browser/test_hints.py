"""The hints panel in a real Chromium: one hint revealed in place, still there after a reload; the offer of a
hint and the model answer appearing as the verdicts that bring them land."""

import pytest
from playwright.sync_api import expect

from interview.models import HintReveal, Submission
from tests.browser.session_support import sign_in
from tests.browser.test_every_page import SCREENS, Visit
from tests.conftest import ARTIFACTS
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory, judged_as

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_revealed_hint_shows_in_place_and_stays_after_a_reload(page, live_server, client):
    problem = ProblemFactory(hints_html=["<p>Subtract the <code>max</code>.</p>", "<p>Along the last axis.</p>"])
    user = UserFactory()
    sign_in(page, live_server, client, user)
    page.goto(f"{live_server.url}{problem.get_absolute_url()}")
    hints = page.locator("[data-hints]")
    expect(hints.locator("[data-hints-count]")).to_have_text("(0 of 2 shown)")

    hints.get_by_role("button", name="Show hint 1").click()
    expect(hints.locator("[data-hints-list] li")).to_have_text(["Subtract the max."])
    expect(hints.locator("[data-hints-count]")).to_have_text("(1 of 2 shown)")
    expect(hints.get_by_role("button", name="Show hint 2")).to_be_visible()
    assert page.url.endswith(problem.get_absolute_url())  # revealed in place, not by a page load

    page.reload()
    expect(hints.locator("[data-hints-list] li")).to_have_text(["Subtract the max."])
    assert HintReveal.objects.get(user=user, problem=problem).shown == 1


@pytest.mark.parametrize("screen", SCREENS)
def test_the_hint_offer_appears_as_the_third_failure_lands_and_the_model_answer_opens_as_accepted_lands(
    browser, live_server, screen
):
    problem = ProblemFactory(hints_html=["<p>Subtract the max.</p>"], explanation_html="<p>The model answer.</p>")
    user = UserFactory()
    for _ in range(2):
        SubmissionFactory(user=user, problem=problem, verdict="wrong_answer")
    visit = Visit(browser, live_server, screen, user)
    page = visit.page
    page.goto(live_server.url + problem.get_absolute_url())
    offer = page.locator("[data-hints-offer]")
    expect(offer).to_have_count(0)

    def submit_judged_as(verdict):
        if screen == "phone":
            page.get_by_role("tab", name="Code").click()
        page.get_by_role("button", name="Submit").click()
        expect(page.locator("[data-run-panel] .result--queued")).to_be_visible()  # the new one, not the last
        judged_as(Submission.objects.filter(user=user).latest("created_at"), verdict=verdict)
        expect(page.locator("[data-result-summary]")).to_be_visible()
        if screen == "phone":
            page.get_by_role("tab", name="Statement").click()

    submit_judged_as("wrong_answer")
    expect(offer).to_have_text("Stuck? Hint 1 is there when you want it.")
    expect(page.locator("#solution")).not_to_contain_text("The model answer.")
    submit_judged_as("accepted")
    expect(page.locator("#solution")).to_contain_text("The model answer.")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Solved")
    page.screenshot(path=ARTIFACTS / f"live-model-answer-{screen}.png")
    assert not visit.errors, visit.errors
    visit.close()
