"""The main navigation on every page: each part of the product, a page that answers, the current one marked."""

import re

import pytest

from tests.interview.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db
PARTS = ["Questions", "Problems", "Drills", "Practice", "Interviews", "Sets"]


def navigation(response) -> list[tuple[str, str, bool]]:
    """(label, href, marked current) for each link of the page's main navigation, in order."""
    nav = re.search(r'<nav class="main-nav" aria-label="Main">(.*?)</nav>', response.content.decode(), re.DOTALL)
    assert nav, "the page has no main navigation"
    links = re.findall(r'<a href="([^"]+)"( aria-current="page")?>([^<]+)</a>', nav[1])
    return [(label, href, bool(current)) for href, current, label in links]


@pytest.fixture
def signed_in(client):
    client.force_login(UserFactory())
    return client


def test_every_page_lists_every_part_of_the_product_in_order(client):
    assert [label for label, _, _ in navigation(client.get("/"))] == PARTS


def test_each_entry_leads_to_a_page_that_answers(signed_in):
    for label, href, _ in navigation(signed_in.get("/")):
        assert signed_in.get(href).status_code == 200, label


def test_the_home_page_marks_no_part_as_current(client):
    assert not any(current for _, _, current in navigation(client.get("/")))


@pytest.mark.parametrize("part", PARTS)
def test_a_parts_own_page_marks_it_and_no_other(signed_in, part):
    href = dict((label, href) for label, href, _ in navigation(signed_in.get("/")))[part]
    marked = [label for label, _, current in navigation(signed_in.get(href)) if current]
    assert marked == [part]


def test_the_current_part_is_marked_on_the_pages_below_it_too(client):
    question = QuestionFactory()
    marked = [label for label, _, current in navigation(client.get(question.get_absolute_url())) if current]
    assert marked == ["Questions"]
