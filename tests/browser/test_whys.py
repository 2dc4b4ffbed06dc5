"""A failure's why in a real Chromium: a button that says it counts as a hint, no axe violation, the words
opened in place with the focus on them, still open after a reload."""

import pytest
from playwright.sync_api import expect

from interview.models import WhyReveal
from tests.browser.test_every_page import SCREENS, Visit
from tests.conftest import ARTIFACTS
from tests.interview.factories import ProblemFactory, SubmissionFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
RULE = "The threshold applies to the global norm over all gradients together."


@pytest.mark.parametrize("screen", SCREENS)
def test_a_why_opens_in_place_takes_the_focus_and_stays_open(browser, live_server, screen):
    user = UserFactory()
    submission = SubmissionFactory(user=user, problem=ProblemFactory(), verdict="wrong_answer", tests_total=2)
    submission.judgement.tests.create(index=0, name="small", status="passed")
    submission.judgement.tests.create(
        index=1, name="clipping-active", status="wrong_answer",
        message="w0 after step 1: 6 of 6 values differ. This is exactly what clipping each gradient by its own "
                "norm gives.", why=RULE)
    visit = Visit(browser, live_server, screen, user)
    page = visit.page
    visit.check(submission.get_absolute_url(), "the author")
    assert not visit.problems, visit.problems
    why = page.locator("#why-1")
    expect(why).not_to_contain_text(RULE)
    expect(why).to_contain_text("Opening it counts as a hint.")

    why.get_by_role("button", name="Why?").click()
    expect(why).to_have_text(f"Why: {RULE}")
    expect(why).to_be_focused()
    assert page.url.endswith(submission.get_absolute_url())  # opened in place, not by a page load
    page.screenshot(path=ARTIFACTS / f"why-opened-{screen}.png")
    assert WhyReveal.objects.filter(user=user, problem=submission.problem).count() == 1

    page.reload()
    expect(page.locator("#why-1")).to_have_text(f"Why: {RULE}")
    assert not visit.errors, visit.errors
    visit.close()
