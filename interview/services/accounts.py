"""Writes about accounts: API tokens, the failed log-ins that throttle password guessing, the password reset
requests throttled alike, the e-mail address, and deleting an account with everything it holds."""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from interview.models import ApiToken, LoginFailure

TOKEN_PREFIX = "itk_"
# Failed log-ins counted over this window: a few per account stops guessing one password; more per address
# allows a classroom behind one NAT while still stopping a sweep across accounts.
LOGIN_WINDOW = timedelta(minutes=15)
LOGIN_FAILURES_PER_ACCOUNT = 5
LOGIN_FAILURES_PER_ADDRESS = 30
# last_used_at is written at most this often, so a script polling a result does not write on every request.
TOKEN_USE_RECORDED_EVERY = timedelta(minutes=1)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class IssuedToken:
    record: ApiToken
    token: str  # shown once; only its digest is stored


def api_token_create(*, user, name: str) -> IssuedToken:
    """A new random token for user; the caller shows `token` once, since it cannot be recovered."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    record = ApiToken.objects.create(user=user, name=name.strip() or "API token", prefix=token[:10],
                                     key_hash=token_digest(token))
    return IssuedToken(record, token)


def api_token_revoke(*, user, token_id: int) -> bool:
    """Delete one of user's tokens; False when user has no such token."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return bool(deleted)


def api_token_user(*, token: str):
    """The active user a bearer token belongs to, or None."""
    record = ApiToken.objects.select_related("user").filter(key_hash=token_digest(token)).first()
    if record is None or not record.user.is_active:
        return None
    now = timezone.now()
    if record.last_used_at is None or record.last_used_at < now - TOKEN_USE_RECORDED_EVERY:
        ApiToken.objects.filter(pk=record.pk).update(last_used_at=now)
    return record.user


def login_wait(*, username: str, ip: str | None) -> timedelta | None:
    """How long until this account or address may try to log in again, or None if it may now."""
    now = timezone.now()
    failures = LoginFailure.objects.filter(created_at__gte=now - LOGIN_WINDOW)
    scopes = [(failures.filter(username=username.strip().lower()), LOGIN_FAILURES_PER_ACCOUNT)]
    if ip:
        scopes.append((failures.filter(ip=ip), LOGIN_FAILURES_PER_ADDRESS))
    waits = []
    for scope, limit in scopes:
        times = list(scope.order_by("-created_at").values_list("created_at", flat=True)[:limit])
        if len(times) >= limit:
            waits.append(times[-1] + LOGIN_WINDOW - now)
    return max(waits) if waits else None


def login_failure_record(*, username: str, ip: str | None) -> None:
    """Count a failed log-in, and forget those too old to matter."""
    LoginFailure.objects.filter(created_at__lt=timezone.now() - LOGIN_WINDOW).delete()
    LoginFailure.objects.create(username=username.strip().lower()[:150], ip=ip)


def login_failures_clear(*, username: str) -> None:
    """A successful log-in clears the account's failures (the address's stay counted)."""
    LoginFailure.objects.filter(username=username.strip().lower()).delete()


def _reset_key(email: str) -> str:
    # Counted beside the failed log-ins, under a name no user name can take (user names have no ':').
    return f"password-reset:{email.strip().lower()}"


def password_reset_wait(*, email: str, ip: str | None) -> timedelta | None:
    """How long until a reset may be asked for this address (or from this client address) again, or None.

    Each request counts as a failed log-in does, so neither an inbox nor the outgoing mail can be flooded."""
    return login_wait(username=_reset_key(email), ip=ip)


def password_reset_record(*, email: str, ip: str | None) -> None:
    login_failure_record(username=_reset_key(email), ip=ip)


def account_email_set(*, user, email: str) -> None:
    user.email = email.strip()
    user.save(update_fields=["email"])


def account_delete(*, user) -> None:
    """Delete the account and, by cascade, everything it holds (submissions, drafts, reviews, interviews,
    tokens, settings), and the failed log-ins counted against its name."""
    with transaction.atomic():
        LoginFailure.objects.filter(username=user.get_username().lower()).delete()
        user.delete()
