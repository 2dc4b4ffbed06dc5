"""The main navigation lists a part of the product once its page exists, and marks the current one."""

import pytest
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import path

from interview.navigation import main_navigation
from interview.urls import urlpatterns as site_urlpatterns

# A site before its practice, mock-interview and set pages existed, and one that then grew a practice page.
EARLY_PAGES = ("practice", "mock_interview_list", "problem_set_list")
without_later_pages = [pattern for pattern in site_urlpatterns if getattr(pattern, "name", None) not in EARLY_PAGES]
urlpatterns = [*without_later_pages, path("practice/", lambda request: HttpResponse(), name="practice")]


class WithoutLaterPages:
    urlpatterns = without_later_pages


def entries(path: str) -> list[tuple[str, str, bool]]:
    request = RequestFactory().get(path)
    return [(e["label"], e["url"], e["current"]) for e in main_navigation(request)["main_navigation"]]


def test_only_pages_that_exist_are_listed(settings):
    settings.ROOT_URLCONF = WithoutLaterPages
    assert entries("/") == [("Questions", "/questions/", False), ("Problems", "/problems/", False)]


@pytest.mark.urls(__name__)
def test_a_page_added_under_its_url_name_appears_in_the_navigation():
    assert entries("/practice/") == [
        ("Questions", "/questions/", False), ("Problems", "/problems/", False), ("Practice", "/practice/", True),
    ]


def test_the_current_section_is_marked_on_its_pages_below_it_too():
    assert entries("/questions/flash-attention/") == [
        ("Questions", "/questions/", True), ("Problems", "/problems/", False), ("Practice", "/practice/", False),
        ("Interviews", "/mock-interviews/", False), ("Sets", "/sets/", False),
    ]
