"""One search across questions, problems, drills and sets, ranked together, a typo forgiven on both databases.

Run on both: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/<name> pytest -n 0 <this file>` for PostgreSQL,
without DATABASE_URL for SQLite.
"""

import pytest
from django.core.management import call_command
from django.db import connection

from interview.selectors.search import edit_distance, site_search
from tests.conftest import ROOT

pytestmark = pytest.mark.django_db
on_sqlite = pytest.mark.skipif(connection.vendor != "sqlite", reason="the vocabulary's suggestion is SQLite's")


@pytest.fixture
def shipped(db):
    """The shipped bank, problems, drills and sets."""
    call_command("sync_content", "--content-dir", str(ROOT / "problems"), verbosity=0)


def found(query: str) -> list[tuple[str, str]]:
    return [(hit.kind, hit.title) for hit in site_search(query).hits]


def test_kv_cache_finds_questions_problems_drills_and_sets_with_a_title_naming_it_first(shipped):
    hits = found("KV cache")
    kinds = {kind for kind, _ in hits}
    assert {"Question", "Problem", "Drill", "Set"} <= kinds, hits
    assert "kv cache" in hits[0][1].lower()
    assert ("Problem", "A paged KV cache") in hits and ("Problem", "Grouped-query attention with a KV cache") in hits


def test_a_mistyped_word_still_finds_a_problem_and_a_drill_about_it(shipped):
    search = site_search("attension")
    kinds = {hit.kind for hit in search.hits}
    assert {"Problem", "Drill", "Question"} <= kinds
    assert ("Problem", "Multi-head self-attention") in [(hit.kind, hit.title) for hit in search.hits]
    assert all("attention" in (hit.title + hit.summary).lower() for hit in search.hits[:5])


@on_sqlite
def test_on_sqlite_a_mistyped_word_is_replaced_by_the_nearest_the_index_knows_and_said_so(shipped):
    search = site_search("attension masks")
    assert search.corrected and search.searched == "attention masks"
    assert not site_search("attention").corrected


def test_a_word_no_text_holds_nor_resembles_finds_nothing(shipped):
    assert site_search("zzyzx").hits == []
    assert site_search("  ").hits == []


def test_the_search_page_lists_every_kind_with_its_link(client, shipped):
    html = client.get("/search/", {"q": "attension"}).content.decode()
    assert 'data-kind="problem"' in html and 'data-kind="drill"' in html and 'href="/problems/mhsa/"' in html


def test_edit_distance_counts_insertions_deletions_and_substitutions():
    assert [edit_distance(*pair) for pair in (("attens", "attent"), ("", "abc"), ("kitten", "sitting"), ("a", "a"))] \
        == [1, 3, 3, 0]
