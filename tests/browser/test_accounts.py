"""The account pages in a real Chromium: API tokens on a phone, and a forgotten password reset by e-mail."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from interview.models import ApiToken
from tests.browser.session_support import sign_in
from tests.interview.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def test_on_a_phone_a_new_token_sits_beside_its_copy_button_and_the_table_scrolls_in_its_box(
    browser, live_server, client
):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    user = UserFactory(username="ada")
    sign_in(page, live_server, client, user)
    page.goto(live_server.url + reverse("profile"))
    page.get_by_label("What is it for?").fill("a laptop with a rather long name for a token")
    page.get_by_role("button", name="Create a token").click()
    token, copy = page.locator("[data-new-token]"), page.get_by_role("button", name="Copy the token")
    assert token.inner_text().startswith(ApiToken.objects.get().prefix)
    token_box, copy_box = token.bounding_box(), copy.bounding_box()
    assert copy_box["x"] >= token_box["x"] + token_box["width"], (token_box, copy_box)
    assert copy_box["x"] + copy_box["width"] <= PHONE["width"]
    table_box = page.get_by_role("region", name="Your tokens")
    assert table_box.evaluate("box => box.scrollWidth > box.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    table_box.focus()
    page.keyboard.press("ArrowRight")
    # A key scrolls smoothly, over a few frames: the box has moved once any of them has.
    page.wait_for_function("box => box.scrollLeft > 0", arg=table_box.element_handle(), timeout=5000)
    # The page after the POST is a GET: a reload shows no token and makes no second one.
    page.reload()
    expect(page.locator("[data-new-token]")).to_have_count(0)
    assert ApiToken.objects.filter(user=user).count() == 1
    context.close()


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_reset_e_mails_link_sets_a_new_password(browser, live_server, settings, tmp_path, screen):
    # Mail as the default install sends it: a file per message, read as the README says.
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = tmp_path / "mail"
    UserFactory(username="ada", email="ada@example.org")
    context = browser.new_context(viewport=PHONE if screen == "phone" else {"width": 1280, "height": 800})
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(live_server.url + reverse("login"))
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("Email").fill("ada@example.org")
    page.get_by_role("button", name="Send the link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Check your mail")
    [message] = [path.read_text() for path in (tmp_path / "mail").glob("*.log")]
    link = re.search(r"http://\S+/accounts/password/reset/\S+/", message)[0]
    page.goto(link)
    page.get_by_label("New password", exact=True).fill("a brand new passphrase")
    page.get_by_label("New password confirmation").fill("a brand new passphrase")
    page.get_by_role("button", name="Set the password").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your new password is set")
    page.get_by_role("link", name="Log in").last.click()
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("a brand new passphrase")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".account")).to_contain_text("ada")
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    context.close()
