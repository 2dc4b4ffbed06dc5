"""Signing a browser in as a test user, without going through the log-in form."""

from django.conf import settings


def sign_in(page, live_server, client, user) -> None:
    """Give the page's browser context the session cookie of `user`, logged in through the test client."""
    client.force_login(user)
    page.context.add_cookies([{
        "name": settings.SESSION_COOKIE_NAME, "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": live_server.url,
    }])
