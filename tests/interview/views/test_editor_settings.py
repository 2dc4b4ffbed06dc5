"""Editor settings kept per signed-in user: the endpoint that saves them and the problem page that loads them."""

import json

import pytest
from django.test import Client

from interview.models import EditorSettings
from tests.interview.factories import ProblemFactory, UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/editor-settings"


@pytest.fixture
def user():
    return UserFactory(username="ada")


@pytest.fixture
def browser(user):
    """A signed-in browser that sends the CSRF token, as the problem page's script does."""
    ProblemFactory(slug="mhsa")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get("/problems/mhsa/")  # sets the csrftoken cookie
    return client


def post(client, body, **headers):
    data = body if isinstance(body, str) else json.dumps(body)
    if "csrftoken" in client.cookies:
        headers["X-CSRFToken"] = client.cookies["csrftoken"].value
    return client.post(URL, data=data, content_type="application/json", headers=headers)


def test_saving_returns_the_settings_and_a_later_save_changes_only_what_it_sends(browser, user):
    response = post(browser, {"font_size": 18, "wrap": True, "keymap": "vim"})
    assert response.status_code == 200
    assert response.json() == {"font_size": 18, "wrap": True, "keymap": "vim"}
    assert post(browser, {"keymap": "emacs"}).json() == {"font_size": 18, "wrap": True, "keymap": "emacs"}
    assert EditorSettings.objects.get(user=user).as_json() == {"font_size": 18, "wrap": True, "keymap": "emacs"}


@pytest.mark.parametrize(("body", "message"), [
    ({"keymap": "nano", "font_size": 16}, "keymap must be one of default, vim, emacs, not 'nano'"),
    ({"font_size": 17, "keymap": "vim"}, "font_size must be one of 12, 13, 14, 15, 16, 18, 20 (pixels), not 17"),
    ({"font_size": True}, "font_size must be one of"),
    ({"wrap": "yes"}, "wrap must be true or false, not 'yes'"),
    ({"theme": "dark"}, "unknown setting 'theme'"),
    ("[1, 2]", "the body must be a JSON object"),
])
def test_a_bad_setting_is_a_400_that_says_why_and_saves_nothing(browser, user, body, message):
    post(browser, {"font_size": 13, "wrap": False, "keymap": "default"})
    response = post(browser, body)
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert EditorSettings.objects.get(user=user).as_json() == {"font_size": 13, "wrap": False, "keymap": "default"}


def test_a_visitor_is_refused_and_a_post_without_the_csrf_token_too(user):
    visitor = Client(enforce_csrf_checks=True)
    assert post(visitor, {"keymap": "vim"}).status_code == 401
    signed_in = Client(enforce_csrf_checks=True)
    signed_in.force_login(user)
    refused = signed_in.post(URL, data=json.dumps({"keymap": "vim"}), content_type="application/json")
    assert refused.status_code == 403
    assert not EditorSettings.objects.exists()


def test_the_problem_page_carries_the_users_saved_settings_and_none_for_others(browser, user):
    post(browser, {"font_size": 20, "wrap": True, "keymap": "emacs"})
    script = '<script id="editor-settings" type="application/json">'
    page = browser.get("/problems/mhsa/").content.decode()
    assert script + '{"font_size": 20, "wrap": true, "keymap": "emacs"}</script>' in page
    assert "Kept with your account." in page
    other = Client()
    other.force_login(UserFactory(username="lin"))
    assert script + "null</script>" in other.get("/problems/mhsa/").content.decode()
    visitor_page = Client().get("/problems/mhsa/").content.decode()
    assert script + "null</script>" in visitor_page
    assert "Kept in this browser." in visitor_page
