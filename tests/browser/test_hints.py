"""The hints panel in a real Chromium: one hint revealed in place, still there after a reload."""

import pytest
from playwright.sync_api import expect

from interview.models import HintReveal
from tests.browser.session_support import sign_in
from tests.interview.factories import ProblemFactory, UserFactory

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
