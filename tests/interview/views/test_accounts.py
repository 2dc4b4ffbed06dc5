"""Signing up, logging in and logging out."""

import pytest
from django.contrib.auth import get_user_model

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
