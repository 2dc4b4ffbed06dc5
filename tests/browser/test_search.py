"""The site's one search in a real Chromium: a mistyped word finds a problem and a drill, at both sizes."""

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.conftest import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def test_a_search_with_a_typo_finds_a_problem_and_a_drill(browser, live_server):
    call_command("sync_content", "--content-dir", str(ROOT / "problems"), verbosity=0)
    for screen, viewport in SCREENS.items():
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.goto(live_server.url + "/")
        if page.locator("#header-search-input").is_visible():
            page.locator("#header-search-input").fill("attension")
            page.keyboard.press("Enter")
        else:
            page.goto(live_server.url + "/search/")
            page.get_by_label("Search everything").fill("attension")
            page.get_by_role("button", name="Search", exact=True).click()
        expect(page).to_have_url(f"{live_server.url}/search/?q=attension")
        problem = page.locator('[data-kind="problem"]').get_by_role("link", name="Multi-head self-attention")
        expect(problem).to_be_visible()
        expect(page.locator('[data-kind="drill"]').first).to_contain_text("attention")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], screen
        problem.click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Multi-head self-attention")
        context.close()
