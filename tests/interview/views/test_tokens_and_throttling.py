"""API tokens (issued on the profile page and by a command, stored hashed) and throttled log-ins."""

import hashlib
import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from interview.models import ApiToken, LoginFailure
from tests.interview.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # These tests check dozens of passwords; the production hasher is slow on purpose.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def user():
    return UserFactory(username="ada")


def issued_token(html: str) -> str:
    return re.search(r'<pre class="token-value" data-new-token>([^<]+)</pre>', html)[1]


def test_the_profile_issues_a_token_shown_once_and_stores_only_its_hash(client, user):
    client.force_login(user)
    created = client.post("/accounts/profile/", {"name": "my editor"})
    assert created.status_code == 302 and created["Location"] == "/accounts/profile/"
    token = issued_token(client.get("/accounts/profile/").content.decode())
    record = ApiToken.objects.get()
    assert record.key_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in {record.name, record.prefix} and token.startswith(record.prefix)
    again = client.get("/accounts/profile/").content.decode()
    assert token not in again and record.prefix in again and "my editor" in again
    assert client.get("/api/problems/x/submissions", headers={"Authorization": f"Bearer {token}"}).status_code == 404


def test_the_token_form_suggests_a_name_without_filling_it_in(client, user):
    client.force_login(user)
    page = client.get("/accounts/profile/").content.decode()
    field = re.search(r'<input [^>]*name="name"[^>]*>', page)[0]
    assert 'placeholder="My editor"' in field and "value=" not in field


def test_reloading_the_page_after_creating_a_token_creates_no_second_one(client, user):
    client.force_login(user)
    client.post("/accounts/profile/", {"name": "laptop"}, follow=True)
    client.get("/accounts/profile/")
    assert ApiToken.objects.filter(user=user).count() == 1


def test_a_token_can_be_revoked_by_its_owner_only(client, user):
    client.force_login(user)
    client.post("/accounts/profile/", {"name": "laptop"})
    record = ApiToken.objects.get()
    client.force_login(UserFactory())
    client.post(f"/accounts/tokens/{record.pk}/revoke")
    assert ApiToken.objects.exists()
    client.force_login(user)
    response = client.post(f"/accounts/tokens/{record.pk}/revoke")
    assert response.status_code == 302 and not ApiToken.objects.exists()


def test_the_profile_needs_a_login(client):
    assert client.get("/accounts/profile/")["Location"].startswith("/accounts/login/")


def test_the_command_prints_a_token_that_authenticates(client, user):
    out, err = StringIO(), StringIO()
    call_command("create_api_token", "ada", "--name", "ci", stdout=out, stderr=err)
    token = out.getvalue().strip()
    assert token.startswith("itk_") and "shown only now" in err.getvalue()
    assert ApiToken.objects.get().name == "ci"
    assert client.get("/api/submissions/1", headers={"Authorization": f"Bearer {token}"}).status_code == 404


def test_the_command_refuses_an_unknown_user():
    with pytest.raises(CommandError, match="no user 'nobody'"):
        call_command("create_api_token", "nobody")


def log_in(client, username, password, ip="10.0.0.1"):
    return client.post("/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=ip)


def test_five_failed_log_ins_lock_the_account_even_with_the_right_password(client, user):
    for _ in range(5):
        assert log_in(client, "ada", "wrong").status_code == 200
    response = log_in(client, "ADA", PASSWORD)
    assert response.status_code == 200
    assert "Too many failed log-ins for this account or from this address" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_lock_lifts_once_the_failures_age_out(client, user):
    for _ in range(5):
        log_in(client, "ada", "wrong")
    LoginFailure.objects.update(created_at=timezone.now() - timedelta(minutes=16))
    assert log_in(client, "ada", PASSWORD).status_code == 302


def test_a_successful_log_in_clears_the_accounts_failures(client, user):
    for _ in range(4):
        log_in(client, "ada", "wrong")
    assert log_in(client, "ada", PASSWORD).status_code == 302
    assert not LoginFailure.objects.filter(username="ada").exists()


def test_one_address_guessing_across_accounts_is_locked_out(client, user):
    for n in range(30):
        log_in(client, f"someone{n}", "guess", ip="10.9.9.9")
    assert log_in(client, "ada", PASSWORD, ip="10.9.9.9").status_code == 200
    assert log_in(client, "ada", PASSWORD, ip="10.0.0.2").status_code == 302


def test_the_admin_log_in_is_throttled_too(client):
    UserFactory(username="root", is_staff=True, is_superuser=True)
    for _ in range(5):
        client.post("/admin/login/", {"username": "root", "password": "wrong"}, REMOTE_ADDR="10.0.0.3")
    response = client.post("/admin/login/?next=/admin/", {"username": "root", "password": PASSWORD},
                           REMOTE_ADDR="10.0.0.3")
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session
