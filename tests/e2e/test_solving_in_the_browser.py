"""Solving a problem in a real Chromium: sign in, write the solution in the editor, submit, watch the verdict.

The app is served by the live server and judged by a real worker process on the embedded queue, as
scripts/run.sh runs them.
"""

import pytest
from playwright.sync_api import expect
from runner import load_problem

from tests.conftest import ARTIFACTS
from tests.judging_support import SOFTMAX_REFERENCE, filesystem_broker

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.sandbox, pytest.mark.slow]
PASSWORD = "correct horse battery staple"


def type_into_editor(page, source: str) -> None:
    """Replace the editor's text as typing would: the code editor when its bundle loaded, else the textarea."""
    # The editor replaces the textarea when the page's scripts run; deciding before that would type into a
    # textarea about to be hidden.
    page.wait_for_load_state("load")
    editor = page.locator(".cm-content")
    if editor.count():
        editor.click()
    else:
        page.locator("#source").click()
    page.keyboard.press("ControlOrMeta+a")
    # One input event for the whole text, as a paste is: typed key by key, the editor's auto-indent would
    # indent each line a second time.
    page.keyboard.insert_text(source)


def test_sign_in_solve_in_the_editor_and_see_the_verdict_without_a_reload(
    page, live_server, content, start_worker, web_publishes_to, django_user_model, tmp_path
):
    queue_dir = tmp_path / "queue"
    url, options = filesystem_broker(queue_dir)
    web_publishes_to(url, options)
    start_worker(url, queue_dir=queue_dir)
    django_user_model.objects.create_user("grace", password=PASSWORD)

    page.goto(f"{live_server.url}/accounts/login/?next=/problems/stable-softmax/")
    page.get_by_label("Username").fill("grace")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Numerically stable softmax")

    type_into_editor(page, SOFTMAX_REFERENCE)
    expect(page.locator("[data-draft-status]")).to_have_text("Draft saved")
    page.evaluate("window.stillTheSamePage = true")
    page.get_by_role("button", name="Submit").click()

    panel = page.locator("[data-run-panel]")
    expect(panel.locator(".verdict")).to_have_text("Accepted", timeout=180_000)
    assert page.evaluate("window.stillTheSamePage") is True
    rows = panel.locator("tr.test")
    expect(rows).to_have_count(len(load_problem("stable-softmax").tests))
    expect(rows.first.locator(".status")).to_have_text("Passed")
    expect(rows.first.locator("td.num").first).to_contain_text(" ms")
    expect(panel.locator(".chart").first).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "solving-accepted.png", full_page=True)

    # The draft survived: a reload shows the code that was submitted.
    page.reload()
    expect(page.locator(".cm-content, #source").first).to_contain_text("exponentials.sum")
