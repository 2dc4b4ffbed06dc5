"""Password log-ins, throttled per account and per address; used by the site's log-in page and the admin's, and
by the forms that ask for a password again (changing it, deleting the account)."""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import caches
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction

from interview.services.accounts import login_failure_record, login_failures_clear, login_wait


def client_address(request) -> str | None:
    """The address the request came from, as the server saw it (a proxy in front must not be shared)."""
    if request is None:
        return None
    return request.META.get("REMOTE_ADDR") or None


# A signed-in request's user comes from the sessions' cache, shared by every web process, instead of a query.
# Every save or delete of a user forgets it there (forget_cached_user); a write that bypasses the model (a
# queryset's update(), SQL) shows once the entry expires.
CACHED_USER_TIMEOUT_S = 300


def _cached_user_key(user_id) -> str:
    # The database's name is part of the key: a test run's database reuses the ids another database holds.
    return f"user:{connection.settings_dict['NAME']}:{user_id}"


def forget_cached_user(sender, instance, **kwargs) -> None:
    """Connected to every save and delete of a user (interview/apps.py)."""
    key = _cached_user_key(instance.pk)
    caches[settings.SESSION_CACHE_ALIAS].delete(key)
    if connection.in_atomic_block:
        # Again once committed: another process may have cached the old row between the write and the commit.
        transaction.on_commit(lambda: caches[settings.SESSION_CACHE_ALIAS].delete(key))


class ThrottledModelBackend(ModelBackend):
    """Django's username-and-password check, refusing to check at all while the account or address is throttled;
    a signed-in request's user read from the sessions' cache."""

    def get_user(self, user_id):
        cache, key = caches[settings.SESSION_CACHE_ALIAS], _cached_user_key(user_id)
        user = cache.get(key)
        if user is None:
            user = super().get_user(user_id)  # None for a missing or deactivated account: not cached
            if user is not None:
                cache.set(key, user, CACHED_USER_TIMEOUT_S)
        return user

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            return super().authenticate(request, username, password, **kwargs)
        ip = client_address(request)
        if login_wait(username=username, ip=ip):
            # Stops the whole authentication chain; Django reports it as a failed log-in.
            raise PermissionDenied("too many failed log-ins")
        user = super().authenticate(request, username, password, **kwargs)
        if user is None:
            login_failure_record(username=username, ip=ip)
        else:
            login_failures_clear(username=username)
        return user


def throttled(wait: timedelta, what: str = "failed log-ins") -> ValidationError:
    """The error that says plainly that attempts are throttled, and for how long."""
    minutes = max(1, round(wait.total_seconds() / 60))
    return ValidationError(
        f"Too many {what} for this account or from this address. Try again in {minutes} "
        f"minute{'s' if minutes != 1 else ''}.",
        code="throttled",
    )


def check_own_password(request, user, password: str) -> None:
    """ValidationError unless password is user's; checked like a log-in, so a wrong one counts and guessing
    through a password form is throttled as it is through the log-in page."""
    wait = login_wait(username=user.get_username(), ip=client_address(request))
    if wait:
        raise throttled(wait)
    if authenticate(request, username=user.get_username(), password=password) is None:
        raise ValidationError("That is not your current password.", code="password_incorrect")


class ThrottledAuthenticationForm(AuthenticationForm):
    """The log-in form, saying plainly when log-ins are throttled rather than calling the password wrong."""

    def clean(self):
        username = self.cleaned_data.get("username")
        wait = login_wait(username=username, ip=client_address(self.request)) if username else None
        if wait:
            raise throttled(wait)
        return super().clean()
