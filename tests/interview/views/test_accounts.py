"""Signing up, logging in and out, the e-mail address, resetting and changing the password, deleting the account."""

import re

import pytest
from django.contrib.auth import get_user_model

from interview.models import ApiToken, LoginFailure, Submission
from interview.services.accounts import api_token_create
from tests.interview.factories import SubmissionFactory

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


def test_signing_up_creates_the_account_and_logs_in(client):
    response = client.post(
        "/accounts/signup/", {"username": "grace", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 302 and response["Location"] == "/"
    assert get_user_model().objects.filter(username="grace").exists()
    assert "grace" in client.get("/").content.decode()


def test_signing_up_returns_to_the_page_it_came_from(client):
    response = client.post(
        "/accounts/signup/?next=/questions/",
        {"username": "grace", "password1": PASSWORD, "password2": PASSWORD, "next": "/questions/"},
    )
    assert response["Location"] == "/questions/"


def test_signing_up_never_redirects_to_another_site(client):
    response = client.post(
        "/accounts/signup/",
        {"username": "grace", "password1": PASSWORD, "password2": PASSWORD, "next": "https://evil.example/"},
    )
    assert response["Location"] == "/"


def test_an_invalid_sign_up_shows_its_errors(client):
    response = client.post(
        "/accounts/signup/", {"username": "grace", "password1": PASSWORD, "password2": "other"}
    )
    assert response.status_code == 200
    assert "field--invalid" in response.content.decode()
    assert not get_user_model().objects.exists()


def test_logging_in_goes_to_the_next_page(client):
    get_user_model().objects.create_user("grace", password=PASSWORD)
    response = client.post(
        "/accounts/login/", {"username": "grace", "password": PASSWORD, "next": "/questions/"}
    )
    assert response["Location"] == "/questions/"


def test_a_wrong_password_is_refused(client):
    get_user_model().objects.create_user("grace", password=PASSWORD)
    response = client.post("/accounts/login/", {"username": "grace", "password": "wrong"})
    assert response.status_code == 200
    assert "form-errors" in response.content.decode()


def test_logging_out_takes_a_post_not_a_link(client):
    client.force_login(get_user_model().objects.create_user("grace", password=PASSWORD))
    assert client.get("/accounts/logout/").status_code == 405
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert "grace" not in client.get("/").content.decode()


# ---- E-mail, password reset and change, deletion --------------------------------------------------------


@pytest.fixture
def mail_folder(settings, tmp_path):
    """Mail as the default install sends it: one file per message, in a folder of the test's own."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = tmp_path / "mail"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return tmp_path / "mail"


@pytest.fixture
def ada(mail_folder):
    return get_user_model().objects.create_user("ada", "ada@example.org", PASSWORD)


def reset_links(folder) -> list[str]:
    messages = [path.read_text() for path in sorted(folder.glob("*.log"))] if folder.exists() else []
    return [link for message in messages for link in re.findall(r"http://testserver(/accounts/password/reset/\S+/)", message)]


def test_signing_up_keeps_an_optional_e_mail_address_used_by_no_other_account(client, ada):
    client.post("/accounts/signup/", {"username": "grace", "email": "grace@example.org",
                                      "password1": PASSWORD, "password2": PASSWORD})
    assert get_user_model().objects.get(username="grace").email == "grace@example.org"
    client.logout()
    response = client.post("/accounts/signup/", {"username": "lin", "email": "ADA@example.org",
                                                 "password1": PASSWORD, "password2": PASSWORD})
    assert "Another account uses this address." in response.content.decode()
    assert not get_user_model().objects.filter(username="lin").exists()


def test_an_existing_account_adds_and_removes_its_address_on_the_account_page(client, mail_folder):
    user = get_user_model().objects.create_user("kai", "", PASSWORD)
    client.force_login(user)
    client.post("/accounts/email", {"account-email": "kai@example.org"})
    user.refresh_from_db()
    assert user.email == "kai@example.org"
    assert 'value="kai@example.org"' in client.get("/accounts/profile/").content.decode()
    client.post("/accounts/email", {"account-email": ""})
    user.refresh_from_db()
    assert user.email == ""


def test_the_reset_link_written_to_the_mail_folder_sets_a_new_password_once(client, ada, mail_folder):
    response = client.post("/accounts/password/reset/", {"email": "Ada@Example.org"})
    assert response["Location"] == "/accounts/password/reset/sent/"
    [link] = reset_links(mail_folder)
    form = client.get(link, follow=True)
    assert "Set a new password" in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "a brand new passphrase",
                                                    "new_password2": "a brand new passphrase"})
    assert done["Location"] == "/accounts/password/reset/done/"
    assert client.login(username="ada", password="a brand new passphrase")
    client.logout()
    assert "This link no longer works" in client.get(link, follow=True).content.decode()


def test_a_reset_for_an_unknown_address_sends_nothing_and_says_the_same(client, ada, mail_folder):
    response = client.post("/accounts/password/reset/", {"email": "nobody@example.org"})
    assert response["Location"] == "/accounts/password/reset/sent/" and reset_links(mail_folder) == []


def test_reset_requests_are_throttled_like_log_ins(client, ada, mail_folder):
    for _ in range(5):
        client.post("/accounts/password/reset/", {"email": "ada@example.org"})
    refused = client.post("/accounts/password/reset/", {"email": "ada@example.org"})
    assert "Too many password reset requests" in refused.content.decode()
    assert len(reset_links(mail_folder)) == 5
    assert client.login(username="ada", password=PASSWORD)  # the log-ins of the account are not locked by it


def test_changing_the_password_needs_the_current_one_and_guessing_it_is_throttled(client, ada):
    client.force_login(ada)
    new = {"new_password1": "another long passphrase", "new_password2": "another long passphrase"}
    for _ in range(5):
        wrong = client.post("/accounts/password/change/", {"old_password": "guess", **new})
        assert "That is not your current password." in wrong.content.decode()
    throttled = client.post("/accounts/password/change/", {"old_password": PASSWORD, **new})
    assert "Too many failed log-ins" in throttled.content.decode()
    LoginFailure.objects.all().delete()
    changed = client.post("/accounts/password/change/", {"old_password": PASSWORD, **new})
    assert changed["Location"] == "/accounts/password/change/done/"
    assert client.get("/accounts/password/change/done/").status_code == 200  # this session stays logged in
    ada.refresh_from_db()
    assert ada.check_password("another long passphrase")


def test_deleting_the_account_takes_its_password_and_deletes_everything_it_holds(client, ada):
    submission = SubmissionFactory(user=ada)
    api_token_create(user=ada, name="laptop")
    other = SubmissionFactory()
    client.force_login(ada)
    wrong = client.post("/accounts/delete/", {"password": "guess"})
    assert "That is not your current password." in wrong.content.decode()
    assert get_user_model().objects.filter(username="ada").exists()
    response = client.post("/accounts/delete/", {"password": PASSWORD}, follow=True)
    assert "Your account and everything it held are deleted." in response.content.decode()
    assert not get_user_model().objects.filter(username="ada").exists()
    assert not Submission.objects.filter(pk=submission.pk).exists() and not ApiToken.objects.exists()
    assert not LoginFailure.objects.filter(username="ada").exists()
    assert Submission.objects.filter(pk=other.pk).exists()
    assert client.get("/accounts/profile/")["Location"].startswith("/accounts/login/")
