"""Home, the layout every page shares, and the code stylesheet."""

import json
import re

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.urls import reverse
from pygments import __version__ as pygments_version

from tests.interview.factories import QuestionFactory, TopicFactory

pytestmark = pytest.mark.django_db


def test_home_shows_the_topics_with_their_question_counts_and_a_search_box(client):
    attention = TopicFactory(name="Attention and Transformers", position=1)
    TopicFactory(name="Debugging training", position=2)
    QuestionFactory.create_batch(2, topic=attention, difficulty="hard")
    html = client.get(reverse("home")).content.decode()
    assert "Attention and Transformers" in html and "2 questions" in html
    assert "Debugging training" in html and "0 questions" in html
    assert '<form class="search-box search-box--large" role="search" action="/questions/"' in html
    assert "Question of the day" in html


def test_home_explains_how_to_load_an_empty_bank(client):
    assert "python manage.py sync_content" in client.get(reverse("home")).content.decode()


def test_the_layout_has_a_skip_link_navigation_and_local_assets_only(client):
    html = client.get(reverse("home")).content.decode()
    assert '<a class="skip-link" href="#main">' in html and '<main id="main"' in html
    assert '<nav class="main-nav" aria-label="Main">' in html
    assert 'href="/questions/"' in html
    assert "https://" not in html and "http://" not in html  # the site works offline: no CDN


def test_anonymous_visitors_are_offered_to_log_in_or_sign_up(client):
    html = client.get(reverse("home")).content.decode()
    assert 'href="/accounts/login/"' in html and 'href="/accounts/signup/"' in html


def test_a_signed_in_user_sees_their_name_and_a_log_out_form(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("ada", password="a long passphrase"))
    html = client.get(reverse("home")).content.decode()
    assert "ada" in html
    assert '<form action="/accounts/logout/" method="post">' in html


def test_the_code_stylesheet_is_css_named_after_the_pygments_version_and_cached(client):
    url = reverse("pygments_css")
    assert url == f"/assets/pygments-{pygments_version}.css"
    response = client.get(url)
    assert response["Content-Type"] == "text/css; charset=utf-8"
    assert "max-age=31536000" in response["Cache-Control"]
    assert ".highlight .k" in response.content.decode()


def test_every_static_file_the_layout_links_exists(client):
    html = client.get(reverse("home")).content.decode()
    linked = re.findall(r'(?:href|src)="/static/([^"]+)"', html)
    assert sorted(linked) == ["interview/css/site.css", "interview/favicon.svg", "interview/js/scrollable_regions.js",
                              "interview/js/site.js"]
    assert all(finders.find(path) for path in linked)


def test_collectstatic_succeeds_with_the_production_storage(settings, tmp_path):
    """The manifest storage fails on a stylesheet that points at a missing file; find out here, not at deploy."""
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    call_command("collectstatic", "--no-input", verbosity=0)
    manifest = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    assert {"interview/css/site.css", "interview/js/site.js", "interview/favicon.svg"} <= set(manifest)


def test_an_unknown_page_gets_the_sites_own_not_found_page(client, settings):
    settings.DEBUG = False
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "That page does not exist" in response.content.decode()
