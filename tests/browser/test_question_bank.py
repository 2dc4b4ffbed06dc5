"""The question bank in a real Chromium: search the list, open a question, reveal its answer."""

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_search_the_list_open_a_question_and_reveal_its_answer(page, live_server, real_bank):
    page.goto(f"{live_server.url}/questions/")
    expect(page.get_by_role("heading", level=1, name="Questions")).to_be_visible()

    # Typing filters the list in place (no reload) and keeps the URL shareable.
    page.locator("#id_q").fill("ZeRO")
    expect(page.locator(".results__summary")).to_contain_text("for “ZeRO”")
    expect(page).to_have_url(re.compile(r"/questions/\?q=ZeRO"))
    first_result = page.locator(".question-item__title").first
    expect(first_result).to_contain_text("ZeRO")

    first_result.click()
    expect(page).to_have_url(re.compile(r"/questions/fsdp-zero/$"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("ZeRO")

    answer = page.locator(".answer__body")
    expect(answer).to_be_hidden()
    page.keyboard.press("r")
    expect(answer).to_be_visible()
    expect(page.get_by_role("heading", name="Key points a strong answer mentions")).to_be_visible()
    expect(answer.locator(".key-points li").first).not_to_be_empty()

    page.get_by_text("Hide the model answer").click()
    expect(answer).to_be_hidden()
    page.get_by_text("Reveal the model answer").click()
    expect(answer).to_be_visible()


def test_the_keyboard_reaches_search_and_the_next_question(page, live_server, real_bank):
    page.goto(f"{live_server.url}/questions/mhsa-from-scratch/")
    expect(page.locator(".highlight .nc", has_text="MHSA").first).to_be_attached()

    page.keyboard.press("/")
    expect(page.locator("#header-search-input")).to_be_focused()
    page.keyboard.press("Escape")

    next_title = page.locator('[data-shortcut="n"] .pager__title').inner_text()
    page.keyboard.press("n")
    expect(page.get_by_role("heading", level=1)).to_have_text(next_title)
