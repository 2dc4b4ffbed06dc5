"""A visitor's code in a real Chromium at both sizes: kept in the browser, carried through sign-up and log-in."""

import pytest
from playwright.sync_api import expect

from interview.models import ProblemDraft
from interview.services.problems import draft_save
from tests.browser.test_every_page import SCREENS, Visit
from tests.conftest import ARTIFACTS
from tests.interview.factories import ProblemFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TYPED = "def solve(x):\n    return x * 2  # typed before signing up\n"
PASSWORD = "a long enough passphrase 42"


def type_code(page, screen, code):
    if screen == "phone":
        page.get_by_role("tab", name="Code").click()
    page.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def visitor_drafts(page) -> list[str]:
    return page.evaluate("Object.keys(localStorage).filter((key) => key.startsWith('problem-draft:'))")


@pytest.mark.parametrize("screen", SCREENS)
def test_a_visitors_code_survives_a_reload_and_is_carried_into_the_account_made_by_signing_up(
    browser, live_server, screen
):
    problem = ProblemFactory(slug="double", title="Double it")
    visit = Visit(browser, live_server, screen)
    page = visit.page
    page.goto(live_server.url + problem.get_absolute_url())
    type_code(page, screen, TYPED)
    expect(page.locator("#source")).to_have_value(TYPED)
    expect(page.locator("[data-draft-status]")).to_have_text("Kept in this browser until you log in or sign up")

    page.reload()
    expect(page.locator("#source")).to_have_value(TYPED)

    if screen == "phone":
        page.get_by_role("tab", name="Code").click()
    page.get_by_role("link", name="or create an account").click()
    page.get_by_label("Username").fill(f"learner-{screen}")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()

    page.wait_for_url(live_server.url + problem.get_absolute_url())
    expect(page.locator("#source")).to_have_value(TYPED)
    expect(page.locator("[data-draft-versions]")).to_be_hidden()
    draft = ProblemDraft.objects.get(user__username=f"learner-{screen}", problem=problem)
    assert (draft.source, draft.has_other_version) == (TYPED, False)
    assert visitor_drafts(page) == []
    page.screenshot(path=ARTIFACTS / f"draft-carried-{screen}.png")
    assert not visit.errors, visit.errors
    visit.close()


def test_when_the_account_holds_newer_different_code_both_are_kept_and_the_user_picks_one(browser, live_server):
    problem = ProblemFactory(slug="double", title="Double it")
    user = UserFactory(username="ada")
    user.set_password(PASSWORD)
    user.save()
    visit = Visit(browser, live_server, "desktop")
    page = visit.page
    page.goto(live_server.url + problem.get_absolute_url())
    type_code(page, "desktop", TYPED)
    expect(page.locator("#source")).to_have_value(TYPED)
    # Typed a minute before the account's code was saved elsewhere.
    page.evaluate("""() => {
      const key = "problem-draft:double", kept = JSON.parse(localStorage.getItem(key));
      localStorage.setItem(key, JSON.stringify({ ...kept, savedAt: kept.savedAt - 60000 }));
    }""")
    newer = "def solve(x):\n    return x + x  # written on another computer later\n"
    draft_save(user=user, problem=problem, source=newer)

    page.get_by_role("link", name="Log in to run and submit").click()
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()

    page.wait_for_url(live_server.url + problem.get_absolute_url())
    versions = page.locator("[data-draft-versions]")
    expect(versions).to_contain_text("The editor shows the newer one. The other was typed in this browser before "
                                     "you logged in, saved")
    expect(page.locator("#source")).to_have_value(newer)
    versions.get_by_text("See the other version").click()
    expect(versions.get_by_label("The other version of your code")).to_have_text(TYPED)
    page.screenshot(path=ARTIFACTS / "draft-two-versions-desktop.png")

    # Still offered after a reload, until a version is picked.
    page.reload()
    expect(versions).to_be_visible()
    versions.get_by_role("button", name="Use the other one instead").click()
    expect(versions).to_be_hidden()
    expect(page.locator("#source")).to_have_value(TYPED)
    draft = ProblemDraft.objects.get(user=user, problem=problem)
    assert (draft.source, draft.has_other_version) == (TYPED, False)
    assert not visit.errors, visit.errors
    visit.close()
