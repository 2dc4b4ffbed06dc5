"""The settings: every environment variable documented in docs/settings.md, and the production guard."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from interview import env

ROOT = Path(__file__).resolve().parents[2]


def _documented_variables() -> set[str]:
    settings_doc = (ROOT / "docs" / "settings.md").read_text()
    return set(re.findall(r"^\|\s*`([A-Z][A-Z0-9_]+)`", settings_doc, flags=re.MULTILINE))


def test_every_environment_variable_read_is_documented():
    undocumented = env.READ - _documented_variables()
    assert not undocumented, f"add these to the settings table in docs/settings.md: {sorted(undocumented)}"


def test_the_settings_doc_lists_no_variable_that_nothing_reads():
    stale = _documented_variables() - env.READ
    assert not stale, f"docs/settings.md documents settings that nothing reads: {sorted(stale)}"


def test_application_code_reads_the_environment_only_through_interview_env():
    direct = []
    for path in (ROOT / "interview").rglob("*.py"):
        if path.name == "env.py":
            continue
        if re.search(r"os\.environ\.get|os\.getenv|os\.environ\[", path.read_text()):
            direct.append(str(path.relative_to(ROOT)))
    allowed = {
        "interview/wsgi.py",  # sets DJANGO_SETTINGS_MODULE, reads nothing
        # The command-line client runs without Django, on a user's machine: it reads where the platform keeps a
        # user's configuration ($XDG_CONFIG_HOME, %APPDATA%), which is no setting of the site.
        "interview/cli.py",
    }
    assert set(direct) <= allowed, f"read settings with interview.env instead: {sorted(set(direct) - allowed)}"


def _start_settings(**overrides: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    environment.update(overrides)
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env={**environment, "DJANGO_SETTINGS_MODULE": "interview.settings"},
        capture_output=True,
        text=True,
    )


def test_production_refuses_to_start_without_a_secret_key():
    result = _start_settings(DJANGO_ENV="production")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_production_refuses_to_start_with_debug_on():
    result = _start_settings(DJANGO_ENV="production", DJANGO_SECRET_KEY="x" * 50, DJANGO_DEBUG="1")
    assert result.returncode != 0
    assert "DJANGO_DEBUG must be off" in result.stderr


def test_production_starts_with_a_secret_key_and_debug_off():
    result = _start_settings(DJANGO_ENV="production", DJANGO_SECRET_KEY="x" * 50)
    assert result.returncode == 0, result.stderr


def test_an_unknown_environment_name_is_refused():
    result = _start_settings(DJANGO_ENV="staging")
    assert result.returncode != 0
    assert "DJANGO_ENV" in result.stderr


@pytest.mark.parametrize("value", ["maybe", "2"])
def test_a_boolean_setting_that_is_not_a_boolean_is_refused(value):
    result = _start_settings(DJANGO_DEBUG=value)
    assert result.returncode != 0
    assert "is not a boolean" in result.stderr


def _mail_settings(**overrides: str) -> str:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "EMAIL_"))}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import settings as s; "
                               "print(s.EMAIL_BACKEND, s.EMAIL_FILE_PATH, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_USE_TLS)"],
        cwd=ROOT, env={**environment, **overrides, "DJANGO_SETTINGS_MODULE": "interview.settings"},
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_mail_goes_to_files_under_var_mail_by_default_and_to_smtp_once_a_host_is_set():
    assert _mail_settings() == (f"django.core.mail.backends.filebased.EmailBackend {ROOT / 'var' / 'mail'}  587 True")
    assert _mail_settings(EMAIL_HOST="smtp.example.org", EMAIL_PORT="465", EMAIL_USE_TLS="0") == (
        f"django.core.mail.backends.smtp.EmailBackend {ROOT / 'var' / 'mail'} smtp.example.org 465 False")
