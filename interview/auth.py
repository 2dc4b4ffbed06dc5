"""Password log-ins, throttled per account and per address; used by the site's log-in page and the admin's."""

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import PermissionDenied, ValidationError

from interview.services.accounts import login_failure_record, login_failures_clear, login_wait


def client_address(request) -> str | None:
    """The address the request came from, as the server saw it (a proxy in front must not be shared)."""
    if request is None:
        return None
    return request.META.get("REMOTE_ADDR") or None


class ThrottledModelBackend(ModelBackend):
    """Django's username-and-password check, refusing to check at all while the account or address is throttled."""

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


class ThrottledAuthenticationForm(AuthenticationForm):
    """The log-in form, saying plainly when log-ins are throttled rather than calling the password wrong."""

    def clean(self):
        username = self.cleaned_data.get("username")
        wait = login_wait(username=username, ip=client_address(self.request)) if username else None
        if wait:
            minutes = max(1, round(wait.total_seconds() / 60))
            raise ValidationError(
                f"Too many failed log-ins for this account or from this address. Try again in {minutes} "
                f"minute{'s' if minutes != 1 else ''}.",
                code="throttled",
            )
        return super().clean()
