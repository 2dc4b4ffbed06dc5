"""The default install runs as deployed: DEBUG off, the site's own 404 and 500 pages, and the admin's own."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import RequestFactory
from django.urls import get_resolver

ROOT = Path(__file__).resolve().parents[2]

# What a request to a missing page answers on the settings run.sh starts with: no DJANGO_* variable, no services.
NOT_FOUND_ON_THE_DEFAULTS = """
import django
django.setup()
from django.conf import settings
from django.test import Client
response = Client().get("/no-such-page/", HTTP_HOST="localhost")
print(settings.DEBUG, response.status_code)
print(response.content.decode())
"""


def test_a_404_on_the_default_settings_shows_the_sites_page_not_djangos_list_of_url_patterns():
    kept = {k: v for k, v in os.environ.items()
            if not k.startswith("DJANGO_") and k not in {"DATABASE_URL", "REDIS_URL"}}
    result = subprocess.run([sys.executable, "-c", NOT_FOUND_ON_THE_DEFAULTS], cwd=ROOT, capture_output=True,
                            text=True, env={**kept, "DJANGO_SETTINGS_MODULE": "interview.settings"})
    assert result.returncode == 0, result.stderr
    status, page = result.stdout.split("\n", 1)
    assert status == "False 404"
    assert "That page does not exist" in page and 'action="/search/"' in page
    assert "URLconf" not in page and "questions/&lt;slug:slug&gt;/" not in page


@pytest.mark.django_db
def test_a_missing_page_of_the_admin_shows_the_admins_404(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "a long passphrase"))
    response = client.get("/admin/interview/no-such-model/")
    page = response.content.decode()
    assert response.status_code == 404
    assert "Nothing of the admin is at this address" in page and 'id="site-name"' in page
    assert "That page does not exist" not in page


@pytest.mark.parametrize(("path", "shown", "not_shown"), [
    ("/problems/causal-mask/", "Something went wrong on our side", 'id="site-name"'),
    ("/admin/interview/problem/", "The error has been logged with its traceback", "home page"),
])
def test_a_server_error_shows_the_page_of_where_it_happened(path, shown, not_shown):
    response = get_resolver().resolve_error_handler(500)(RequestFactory().get(path))
    page = response.content.decode()
    assert response.status_code == 500
    assert shown in page and not_shown not in page
