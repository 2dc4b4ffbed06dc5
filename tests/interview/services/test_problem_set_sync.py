"""sync_problem_sets: the set files under sets/ into the database, with the bank's rules."""

import textwrap
from io import StringIO

import pytest
from django.core.management import call_command

from interview.content.errors import ContentError
from interview.models import Origin, ProblemSet
from interview.services.practice import practice_session_start
from interview.services.problem_set_sync import sync_problem_sets
from tests.conftest import ROOT
from tests.interview.drill_support import make_drill
from tests.interview.factories import ProblemFactory, QuestionFactory, UserFactory
from tests.interview.study_support import make_set

pytestmark = pytest.mark.django_db

SHIPPED_SETS = {
    "nvidia-deep-learning-loop", "attention-from-scratch", "precision-and-memory", "distributed-training",
    "inference-systems", "llm-building-blocks", "debugging-training", "generative-models", "post-training",
    "regularization-and-normalization", "gpu-kernels",
}


def write_set(root, slug: str, items: list[str], *, title: str | None = None, extra: str = "") -> None:
    """A set file naming these items, each written `kind: id`."""
    listed = "\n".join(f"  - {item}" for item in items)
    path = root / "sets" / f"{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\nid: {slug}\ntitle: {title or slug.title()}\ndifficulty: medium\nminutes: 45\n{extra}"
        f"items:\n{listed}\n---\nWhat **{slug}** drills.\n"
    )


def item_slugs(slug: str) -> list[str]:
    return [item.target.slug for item in ProblemSet.objects.get(slug=slug).items.all()]


@pytest.fixture
def bank():
    """Two questions and a problem for set files to name."""
    return QuestionFactory(slug="flash-attention"), QuestionFactory(slug="gqa-mqa"), ProblemFactory(slug="mhsa")


def test_a_fresh_install_lists_the_shipped_sets_and_offers_them_to_a_mock_interview(client, django_user_model):
    out = StringIO()
    call_command("sync_content", "--content-dir", str(ROOT / "problems"), stdout=out)
    assert f"Problem sets: {len(SHIPPED_SETS)} created" in out.getvalue()
    sets = ProblemSet.objects.filter(origin=Origin.FILE)
    assert set(sets.values_list("slug", flat=True)) >= SHIPPED_SETS
    for problem_set in sets.filter(slug__in=SHIPPED_SETS):
        kinds = [item.kind for item in problem_set.items.all()]
        assert problem_set.is_published and "question" in kinds and "problem" in kinds, problem_set.slug
    assert ProblemSet.objects.get(slug="nvidia-deep-learning-loop").time_budget_minutes == 60

    listing = client.get("/sets/").content.decode()
    assert all(f"/sets/{slug}/" in listing for slug in SHIPPED_SETS)
    client.force_login(django_user_model.objects.create_user("candidate"))
    offered = client.get("/mock-interviews/").content.decode()
    assert all(f'<option value="{slug}"' in offered for slug in SHIPPED_SETS)

    again = StringIO()
    call_command("sync_content", "--content-dir", str(ROOT / "problems"), stdout=again)
    assert f"Problem sets: 0 created, 0 updated, {len(SHIPPED_SETS)} unchanged" in again.getvalue()
    assert "Nothing changed." in again.getvalue()


def test_a_set_file_becomes_a_published_set_with_its_items_in_order(tmp_path, bank):
    write_set(tmp_path, "attention-loop", ["question: gqa-mqa", "problem: mhsa", "question: flash-attention"])
    report = sync_problem_sets(content_dir=tmp_path)
    assert (report.created, report.updated) == (1, 0)
    problem_set = ProblemSet.objects.get(slug="attention-loop")
    assert (problem_set.origin, problem_set.source_path, problem_set.is_published) == (
        Origin.FILE, "sets/attention-loop.md", True)
    assert problem_set.description == "What **attention-loop** drills.\n"
    assert item_slugs("attention-loop") == ["gqa-mqa", "mhsa", "flash-attention"]
    assert [item.position for item in problem_set.items.all()] == [1, 2, 3]


def test_a_second_sync_changes_nothing_and_a_reordered_file_reorders_the_set(tmp_path, bank):
    write_set(tmp_path, "attention-loop", ["question: gqa-mqa", "problem: mhsa"])
    sync_problem_sets(content_dir=tmp_path)
    item_ids = list(ProblemSet.objects.get(slug="attention-loop").items.values_list("pk", flat=True))
    report = sync_problem_sets(content_dir=tmp_path)
    assert (report.unchanged, report.changed) == (1, False)
    assert list(ProblemSet.objects.get(slug="attention-loop").items.values_list("pk", flat=True)) == item_ids

    write_set(tmp_path, "attention-loop", ["problem: mhsa", "question: gqa-mqa"])
    assert sync_problem_sets(content_dir=tmp_path).updated == 1
    assert item_slugs("attention-loop") == ["mhsa", "gqa-mqa"]


def test_an_unknown_item_stops_the_sync_with_nothing_changed(tmp_path, bank):
    write_set(tmp_path, "attention-loop", ["question: gqa-mqa"], title="Before")
    sync_problem_sets(content_dir=tmp_path)
    write_set(tmp_path, "attention-loop", ["question: gqa-mqa", "problem: mhsa"], title="After")
    write_set(tmp_path, "second-loop", ["question: flash-attention", "question: no-such-question"])
    with pytest.raises(ContentError) as error:
        sync_problem_sets(content_dir=tmp_path)
    assert "sets/second-loop.md: items[2]: no live question 'no-such-question'" in str(error.value)
    assert ProblemSet.objects.get(slug="attention-loop").title == "Before"
    assert item_slugs("attention-loop") == ["gqa-mqa"]
    assert not ProblemSet.objects.filter(slug="second-loop").exists()


def test_a_faulty_file_is_reported_field_by_field(tmp_path, bank):
    write_set(tmp_path, "loop", ["question: gqa-mqa", "question: gqa-mqa", "video: kv-cache-size"],
              extra="published: sometimes\n")
    with pytest.raises(ContentError) as error:
        sync_problem_sets(content_dir=tmp_path)
    message = str(error.value)
    assert "items[3]: 'video' is not a kind of item (question, problem, drill)" in message
    assert "published: must be true or false" in message
    assert not ProblemSet.objects.exists()


def test_sets_written_in_the_admin_are_untouched_and_their_ids_not_taken(tmp_path, bank):
    question, _, problem = bank
    mine = make_set(problem, question, slug="my-loop", title="My loop")
    write_set(tmp_path, "attention-loop", ["question: gqa-mqa"])
    sync_problem_sets(content_dir=tmp_path)
    assert ProblemSet.objects.get(slug="my-loop").title == "My loop"
    assert item_slugs("my-loop") == ["mhsa", "flash-attention"]
    assert ProblemSet.objects.get(pk=mine.pk).retired_at is None

    write_set(tmp_path, "my-loop", ["question: gqa-mqa"])
    with pytest.raises(ContentError, match="'my-loop' is already the id of a set written in the admin"):
        sync_problem_sets(content_dir=tmp_path)


def test_a_removed_file_retires_its_set_and_a_returning_one_restores_it(tmp_path, bank, client):
    write_set(tmp_path, "attention-loop", ["question: gqa-mqa"])
    sync_problem_sets(content_dir=tmp_path)
    (tmp_path / "sets" / "attention-loop.md").unlink()
    assert sync_problem_sets(content_dir=tmp_path).retired == 1
    assert client.get("/sets/attention-loop/").status_code == 404

    write_set(tmp_path, "attention-loop", ["question: gqa-mqa"])
    assert sync_problem_sets(content_dir=tmp_path).restored == 1
    assert client.get("/sets/attention-loop/").status_code == 200


def test_the_format_is_the_one_problems_readme_describes(tmp_path, bank):
    readme = (ROOT / "problems" / "README.md").read_text()
    example = readme.split("A set file:\n\n```markdown\n", 1)[1].split("```", 1)[0]
    (tmp_path / "sets").mkdir()
    (tmp_path / "sets" / "example.md").write_text(textwrap.dedent(example))
    make_drill(bank[0].topic, slug="kv-cache-per-token")
    sync_problem_sets(content_dir=tmp_path)
    assert item_slugs("attention-loop") == ["flash-attention", "mhsa", "kv-cache-per-token", "gqa-mqa"]


def test_a_drill_is_an_item_in_its_place_shown_on_the_page_and_asked_by_a_practice_session(tmp_path, bank, client):
    question, _, _ = bank
    drill = make_drill(question.topic, slug="kv-bytes")
    write_set(tmp_path, "loop", ["question: flash-attention", "drill: kv-bytes", "problem: mhsa"])
    sync_problem_sets(content_dir=tmp_path)
    assert item_slugs("loop") == ["flash-attention", "kv-bytes", "mhsa"]
    page = client.get("/sets/loop/").content.decode()
    assert drill.get_absolute_url() in page and "Estimation drill" in page

    session = practice_session_start(user=UserFactory(), problem_set=ProblemSet.objects.get(slug="loop"))
    asked = session.items.get(drill__isnull=False)
    assert asked.drill == drill and asked.drill_attempt.drill == drill

    write_set(tmp_path, "loop", ["question: flash-attention", "drill: no-such-drill"])
    with pytest.raises(ContentError, match="items\\[2\\]: no live drill 'no-such-drill'"):
        sync_problem_sets(content_dir=tmp_path)
    assert item_slugs("loop") == ["flash-attention", "kv-bytes", "mhsa"]
