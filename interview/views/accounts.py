"""Signing up, logging in (throttled), and the account page with its API tokens; logging out is Django's."""

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from interview.auth import ThrottledAuthenticationForm
from interview.services.accounts import api_token_create, api_token_revoke


def _safe_next(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure())
    return target if allowed else ""


def signup_view(request):
    if request.user.is_authenticated:
        return redirect(_safe_next(request) or "home")
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="interview.auth.ThrottledModelBackend")
        return redirect(_safe_next(request) or "home")
    return render(request, "registration/signup.html", {"form": form, "next": _safe_next(request)})


class ThrottledLoginView(auth_views.LoginView):
    """Django's log-in page, with a plain message while an account or address is throttled."""

    authentication_form = ThrottledAuthenticationForm
    redirect_authenticated_user = True


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100, label="What is it for?",
        widget=forms.TextInput(attrs={"placeholder": "My editor"}),
        help_text="A name to recognise the token by, e.g. the machine or the editor using it.",
    )


# The session key under which a new token waits for the one page that shows it.
ISSUED_TOKEN_KEY = "issued_api_token"


@login_required
def profile_view(request):
    """The account page: API tokens. Creating one redirects, so a reload makes no second token; the new token
    is kept in the session only until that next page has shown it, once."""
    form = TokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        issued = api_token_create(user=request.user, name=form.cleaned_data["name"])
        request.session[ISSUED_TOKEN_KEY] = {"name": issued.record.name, "token": issued.token}
        return redirect("profile")
    context = {"form": form, "issued": request.session.pop(ISSUED_TOKEN_KEY, None),
               "tokens": request.user.api_tokens.all()}
    return render(request, "registration/profile.html", context)


@login_required
@require_POST
def api_token_revoke_view(request, pk: int):
    if api_token_revoke(user=request.user, token_id=pk):
        messages.success(request, "The token is revoked: requests that send it are refused from now on.")
    return redirect("profile")
