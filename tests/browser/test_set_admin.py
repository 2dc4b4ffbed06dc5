"""Curating a problem set in the admin, in a real Chromium: the URL preview and the item picker."""

import pytest
from django.conf import settings
from playwright.sync_api import expect

from tests.interview.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_url_preview_follows_the_id_and_the_picker_offers_the_title_match_first(
    page, live_server, client, real_bank
):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    page.context.add_cookies([{
        "name": settings.SESSION_COOKIE_NAME, "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": live_server.url,
    }])
    page.goto(f"{live_server.url}/admin/interview/problemset/add/")
    preview = page.locator(".set-slug-preview")
    expect(preview).to_have_text("…")
    page.locator("#id_title").press_sequentially("Attention loop")
    expect(page.locator("#id_slug")).to_have_value("attention-loop")
    expect(preview).to_have_text("attention-loop")
    page.locator("#id_slug").fill("attention-drills")
    expect(preview).to_have_text("attention-drills")

    page.locator("#items-0 .field-question .select2-selection").click()
    page.locator(".select2-search__field").fill("Multi-head")
    expect(page.locator(".select2-results__option").first).to_have_text("Multi-head self-attention from scratch")
