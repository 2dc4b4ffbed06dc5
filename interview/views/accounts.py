"""Signing up, logging in (throttled), the account page (e-mail address, API tokens), changing, resetting and
asking again for the password (Django's views, the site's pages), and deleting the account; logging out is
Django's."""

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model, login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordChangeForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from interview.auth import ThrottledAuthenticationForm, check_own_password, client_address, throttled
from interview.services.accounts import (
    account_delete, account_email_set, api_token_create, api_token_revoke, password_reset_record,
    password_reset_wait,
)

EMAIL_HELP = "Only to send you a link when you forget your password; never shown to anyone."


def _safe_next(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure())
    return target if allowed else ""


def _unused_email(email: str, user=None) -> str:
    """The address, unless another account has it: a reset link must go to one account."""
    others = get_user_model().objects.filter(email__iexact=email)
    if email and others.exclude(pk=getattr(user, "pk", None)).exists():
        raise ValidationError("Another account uses this address.")
    return email


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=False, label="E-mail address (optional)", help_text=EMAIL_HELP)

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def clean_email(self):
        return _unused_email(self.cleaned_data["email"])


class EmailForm(forms.Form):
    email = forms.EmailField(required=False, label="E-mail address", help_text=EMAIL_HELP)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_email(self):
        return _unused_email(self.cleaned_data["email"], self.user)


def signup_view(request):
    if request.user.is_authenticated:
        return redirect(_safe_next(request) or "home")
    form = SignupForm(request.POST or None)
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
               "tokens": request.user.api_tokens.all(),
               "email_form": EmailForm(initial={"email": request.user.email}, user=request.user, prefix="account")}
    return render(request, "registration/profile.html", context)


@login_required
@require_POST
def account_email_view(request):
    form = EmailForm(request.POST, user=request.user, prefix="account")
    if not form.is_valid():
        for error in form.errors["email"]:
            messages.error(request, error)
    else:
        account_email_set(user=request.user, email=form.cleaned_data["email"])
        messages.success(request, "Your e-mail address is saved." if form.cleaned_data["email"]
                         else "Your e-mail address is removed: a forgotten password can no longer be reset.")
    return redirect("profile")


class ThrottledPasswordResetView(auth_views.PasswordResetView):
    """Django's reset by e-mail, each request counted so that an inbox or the outgoing mail cannot be flooded."""

    template_name = "registration/account_password_reset.html"
    email_template_name = "registration/account_password_reset_email.txt"
    subject_template_name = "registration/account_password_reset_subject.txt"
    success_url = reverse_lazy("password_reset_done")

    def form_valid(self, form):
        email, ip = form.cleaned_data["email"], client_address(self.request)
        wait = password_reset_wait(email=email, ip=ip)
        if wait:
            form.add_error(None, throttled(wait, "password reset requests"))
            return self.form_invalid(form)
        password_reset_record(email=email, ip=ip)
        return super().form_valid(form)


class ThrottledPasswordChangeForm(PasswordChangeForm):
    """Django's password change, the current password checked as a log-in is (interview.auth)."""

    def __init__(self, user, *args, request, **kwargs):
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self):
        check_own_password(self.request, self.user, self.cleaned_data["old_password"])
        return self.cleaned_data["old_password"]


class ThrottledPasswordChangeView(auth_views.PasswordChangeView):
    form_class = ThrottledPasswordChangeForm
    template_name = "registration/account_password_change.html"
    success_url = reverse_lazy("password_change_done")

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}


class AccountDeleteForm(forms.Form):
    password = forms.CharField(label="Your password", strip=False,
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}))

    def __init__(self, *args, request, **kwargs):
        super().__init__(*args, **kwargs)
        self.request = request

    def clean_password(self):
        check_own_password(self.request, self.request.user, self.cleaned_data["password"])
        return self.cleaned_data["password"]


@login_required
def account_delete_view(request):
    """Delete the account and everything it holds, once its password is given again."""
    form = AccountDeleteForm(request.POST or None, request=request)
    if request.method == "POST" and form.is_valid():
        user = request.user
        logout(request)
        account_delete(user=user)
        messages.success(request, "Your account and everything it held are deleted.")
        return redirect("home")
    return render(request, "registration/account_delete.html", {"form": form})


@login_required
@require_POST
def api_token_revoke_view(request, pk: int):
    if api_token_revoke(user=request.user, token_id=pk):
        messages.success(request, "The token is revoked: requests that send it are refused from now on.")
    return redirect("profile")
