"""Problem topics: synced from problem.toml, each id checked against the live topics of the same sync."""

import re
from io import StringIO

import pytest
import yaml
from django.core.management import CommandError, call_command
from django.utils import timezone

from interview.content.errors import ContentError
from interview.content.problem_topics import load_problem_topics
from interview.models import Problem, Topic
from interview.services.problem_topic_sync import sync_problem_topics
from tests.conftest import ROOT
from tests.interview.content_tree import DEFAULT_TOPICS
from tests.interview.factories import ProblemFactory, TopicFactory
from tests.judging_support import SOFTMAX, content_with

pytestmark = pytest.mark.django_db


def write_topics(root, slug: str, topics: str | None) -> None:
    package = root / slug
    package.mkdir(parents=True, exist_ok=True)
    line = f"topics = {topics}\n" if topics is not None else ""
    (package / "problem.toml").write_text(f'title = "{slug}"\n{line}')


def topic_slugs(slug: str) -> set[str]:
    return set(Problem.objects.get(slug=slug).topics.values_list("slug", flat=True))


@pytest.fixture
def mhsa(tmp_path):
    """A problem, two live topics and a problem.toml that names them both."""
    problem = ProblemFactory(slug="mhsa", title="Multi-head self-attention")
    TopicFactory(slug="attention")
    TopicFactory(slug="inference")
    TopicFactory(slug="parallelism")
    write_topics(tmp_path, "mhsa", '["attention", "inference"]')
    return problem


def test_the_sync_gives_each_problem_the_topics_its_file_names_and_a_second_sync_changes_nothing(mhsa, tmp_path):
    report = sync_problem_topics(content_dir=tmp_path)
    assert (report.created, report.updated, report.unchanged) == (1, 0, 0)
    assert topic_slugs("mhsa") == {"attention", "inference"}
    touched = Problem.objects.get().updated_at

    again = sync_problem_topics(content_dir=tmp_path)
    assert (again.created, again.updated, again.unchanged, again.changed) == (0, 0, 1, False)
    assert Problem.objects.get().updated_at == touched


def test_a_changed_list_replaces_the_topics_and_counts_as_an_update(mhsa, tmp_path):
    sync_problem_topics(content_dir=tmp_path)
    before = Problem.objects.get().updated_at
    write_topics(tmp_path, "mhsa", '["parallelism"]')
    report = sync_problem_topics(content_dir=tmp_path)
    assert (report.created, report.updated) == (0, 1)
    assert topic_slugs("mhsa") == {"parallelism"}
    # The question list's cache is keyed by the problems' latest change.
    assert Problem.objects.get().updated_at > before


def test_an_unknown_topic_stops_the_sync_naming_the_file_and_the_entry_and_changes_nothing(mhsa, tmp_path):
    sync_problem_topics(content_dir=tmp_path)
    write_topics(tmp_path, "mhsa", '["parallelism", "no-such-topic"]')
    with pytest.raises(ContentError, match=re.escape(
            "mhsa/problem.toml: topics[2]: 'no-such-topic' is not a topic of topics.yaml")):
        sync_problem_topics(content_dir=tmp_path)
    assert topic_slugs("mhsa") == {"attention", "inference"}


def test_a_retired_topic_is_refused_like_an_unknown_one(mhsa, tmp_path):
    Topic.objects.filter(slug="inference").update(retired_at=timezone.now())
    with pytest.raises(ContentError, match=re.escape("mhsa/problem.toml: topics[2]: 'inference' is retired")):
        sync_problem_topics(content_dir=tmp_path)
    assert topic_slugs("mhsa") == set()


@pytest.mark.parametrize(("listed", "says"), [
    (None, "topics: names no topic"),
    ("[]", "topics: names no topic"),
    ('["attention", "inference", "parallelism", "activations"]', "names 4; a problem practises at most 3"),
    ('["attention", "attention"]', "'attention' is listed twice"),
    ('"attention"', "must be a list of topic ids"),
    ('["Attention"]', r"topics\[1\]: 'Attention' is not an id"),
])
def test_a_missing_or_malformed_topic_list_is_refused_before_anything_is_read(tmp_path, listed, says):
    write_topics(tmp_path, "mhsa", listed)
    with pytest.raises(ContentError, match=f"mhsa/problem.toml: .*{says}"):
        load_problem_topics(tmp_path)


# ---- Through sync_content ---------------------------------------------------------------------------------


@pytest.fixture
def bank_with_softmax(content):
    """A content folder with stable-softmax naming two topics, and the questions its follow-ups name."""
    content.write_question("bf16-vs-fp16")
    content.write_question("flash-attention")
    content_with(content.root, SOFTMAX)
    toml = content.root / SOFTMAX / "problem.toml"
    toml.write_text(re.sub(r"(?m)^topics = .*$", 'topics = ["attention", "precision-memory"]', toml.read_text()))
    return content


def sync(content) -> str:
    out = StringIO()
    call_command("sync_content", "--content-dir", str(content.root), stdout=out)
    return out.getvalue()


def test_sync_content_refuses_a_topic_that_topics_yaml_does_not_list_and_changes_nothing(bank_with_softmax):
    with pytest.raises(CommandError, match="(?s)stable-softmax/problem.toml: topics\\[2\\]: 'precision-memory' "
                                           "is not a topic of topics.yaml.*Nothing was changed"):
        sync(bank_with_softmax)
    assert not Problem.objects.exists() and not Topic.objects.exists()


def test_sync_content_checks_the_topics_it_has_just_loaded(bank_with_softmax):
    topics = [*DEFAULT_TOPICS, {"id": "precision-memory", "name": "Mixed precision and memory",
                                  "description": "Number formats and memory."}]
    bank_with_softmax.write_topics(topics)
    output = sync(bank_with_softmax)
    assert "Problem topics: 1 created, 0 updated, 0 unchanged, 0 retired, 0 restored" in output
    assert topic_slugs(SOFTMAX) == {"attention", "precision-memory"}
    assert sync(bank_with_softmax).splitlines()[-1] == "Nothing changed."

    # Dropped from topics.yaml, the topic is retired by this very sync, and the problem may not name it.
    bank_with_softmax.write_topics(DEFAULT_TOPICS)
    with pytest.raises(CommandError, match="'precision-memory' is retired"):
        sync(bank_with_softmax)
    assert Topic.objects.get(slug="precision-memory").retired_at is None
    assert topic_slugs(SOFTMAX) == {"attention", "precision-memory"}


def test_every_shipped_problem_names_one_to_three_topics_of_topics_yaml():
    shipped = {entry["id"] for entry in yaml.safe_load((ROOT / "problems/questions/topics.yaml").read_text())}
    listed = load_problem_topics(ROOT / "problems")
    assert listed and all(1 <= len(topics) <= 3 and set(topics) <= shipped for topics in listed.values()), listed
