"""The question list is served from a cache keyed by the bank's version: fast when nothing changed, fresh
the moment anything shown changes (sync_content, the admin), and never one reader's page shown to another."""

import re
import time

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import reverse

from interview.models import Question
from interview.selectors import questions as question_selectors
from interview.services.content_sync import sync_questions
from tests.interview.content_tree import ContentTree
from tests.interview.factories import QuestionFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db

URL = reverse("question_list")


@pytest.fixture
def bank():
    attention = TopicFactory(slug="attention", name="Attention and Transformers", position=1)
    return {"attention": attention,
            "sdpa": QuestionFactory(slug="sdpa", title="SDPA", topic=attention, prompt="What is SDPA?")}


def titles(response) -> list[str]:
    return re.findall(r'class="question-item__title" href="/questions/[\w-]+/">([^<]*)<', response.content.decode())


def test_a_repeated_request_is_served_from_the_cache_with_one_small_query(client, bank,
                                                                          django_assert_max_num_queries):
    first = client.get(URL, {"topic": "attention"})
    with django_assert_max_num_queries(1):
        again = client.get(URL, {"topic": "attention"})
    assert again.content == first.content and titles(again) == ["SDPA"]


def test_an_edited_question_shows_on_the_next_request(client, bank):
    assert titles(client.get(URL)) == ["SDPA"]
    bank["sdpa"].title = "Scaled dot-product attention"
    bank["sdpa"].save()
    assert titles(client.get(URL)) == ["Scaled dot-product attention"]


def test_a_renamed_topic_and_a_deleted_question_show_on_the_next_request(client, bank):
    client.get(URL)
    bank["attention"].name = "Attention, renamed"
    bank["attention"].save()
    assert "Attention, renamed" in client.get(URL).content.decode()
    Question.objects.filter(slug="sdpa").delete()
    assert titles(client.get(URL)) == []


def test_sync_content_changes_what_the_list_shows(client, tmp_path):
    tree = ContentTree(tmp_path / "content")
    tree.write_question("kv-cache", title="KV cache")
    sync_questions(content_dir=tree.root)
    assert titles(client.get(URL)) == ["KV cache"]
    tree.write_question("kv-cache", title="The KV cache")
    tree.write_question("mqa", title="Multi-query attention")
    sync_questions(content_dir=tree.root)
    assert sorted(titles(client.get(URL))) == ["Multi-query attention", "The KV cache"]


def test_an_anonymous_page_carries_an_etag_and_a_conditional_get_is_answered_not_modified(client, bank):
    first = client.get(URL)
    etag = first["ETag"]
    assert client.get(URL, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert client.get(URL, {"topic": "attention"})["ETag"] != etag
    bank["sdpa"].title = "Changed"
    bank["sdpa"].save()
    changed = client.get(URL, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag and titles(changed) == ["Changed"]


def test_a_logged_in_readers_page_is_their_own_and_never_reaches_anyone_else(client, bank):
    user = UserFactory(username="ada_lovelace_reader")
    client.get(URL)
    client.force_login(user)
    mine = client.get(URL)
    html = mine.content.decode()
    assert "ada_lovelace_reader" in html and "csrfmiddlewaretoken" in html and not mine.has_header("ETag")
    assert titles(mine) == ["SDPA"]
    client.logout()
    anonymous = client.get(URL).content.decode()
    assert "ada_lovelace_reader" not in anonymous and "csrfmiddlewaretoken" not in anonymous and "Log in" in anonymous


def test_the_login_link_of_a_cached_anonymous_page_returns_to_the_page_it_was_on(client, bank):
    client.get(URL, {"difficulty": "hard"})
    html = client.get(URL, {"topic": "attention"}).content.decode()
    assert "?next=/questions/%3Ftopic%3Dattention" in html


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_version_is_read_again_after_a_second_or_at_once_after_a_write(monkeypatch):
    topic = TopicFactory(slug="attention")
    QuestionFactory(slug="sdpa", topic=topic)
    monkeypatch.setattr(question_selectors, "VERSION_REUSE_S", 0.3)
    before = question_selectors.question_bank_version()
    with connection.cursor() as cursor:  # another process's write: no signal reaches this one
        cursor.execute(f"UPDATE {Question._meta.db_table} SET updated_at = CURRENT_TIMESTAMP")
    assert question_selectors.question_bank_version() == before
    time.sleep(0.35)
    after_another_process = question_selectors.question_bank_version()
    assert after_another_process != before
    QuestionFactory(slug="mqa", topic=topic)
    assert question_selectors.question_bank_version() != after_another_process


def test_a_signed_in_readers_repeated_request_costs_only_the_small_version_query(client, bank,
                                                                                django_assert_num_queries):
    client.force_login(UserFactory(username="ada"))
    first = client.get(URL)
    # The session and the user come from the sessions' cache. The bank's version is read on every request inside
    # a test's transaction; outside one, at most once a second.
    with django_assert_num_queries(1):
        again = client.get(URL)
    assert titles(again) == titles(first) == ["SDPA"] and "ada" in again.content.decode()


def same_session_elsewhere(client) -> Client:
    """Another client holding the same session cookie: a second tab, or a request to another web process."""
    other = Client()
    other.cookies[settings.SESSION_COOKIE_NAME] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return other


def signed_in(client) -> bool:
    return "Log out" in client.get(URL).content.decode()


def test_logging_out_signs_the_session_out_everywhere_at_once(client, bank):
    client.force_login(UserFactory(username="ada"))
    elsewhere = same_session_elsewhere(client)
    assert signed_in(elsewhere)
    client.post(reverse("logout"))
    assert not signed_in(elsewhere)


@pytest.mark.parametrize("change", ["password", "deactivated"])
def test_a_changed_password_or_a_deactivated_account_signs_a_cached_reader_out(client, bank, change):
    user = UserFactory(username="ada")
    client.force_login(user)
    assert signed_in(client)
    if change == "password":
        user.set_password("a different long password")
    else:
        user.is_active = False
    user.save()
    assert not signed_in(client)


def test_a_cached_readers_page_carries_this_requests_csrf_token_and_logs_out(bank):
    reader = Client(enforce_csrf_checks=True)
    reader.force_login(UserFactory(username="ada"))
    reader.get(URL)
    page = reader.get(URL).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    assert "placeholder" not in token
    assert reader.post(reverse("logout"), {"csrfmiddlewaretoken": token}).status_code == 302
    assert "Log in" in reader.get(URL).content.decode()


def test_a_renamed_reader_sees_their_new_name_on_the_next_request(client, bank):
    user = UserFactory(username="ada")
    client.force_login(user)
    assert ">ada<" in client.get(URL).content.decode()
    user.username = "ada_byron"
    user.save()
    html = client.get(URL).content.decode()
    assert ">ada_byron<" in html and ">ada<" not in html
