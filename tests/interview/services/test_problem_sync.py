"""sync_problems: the problem packages into the database, idempotently, with versions, retiring, restoring."""

import pytest

import runner
from interview.content.errors import ContentError
from interview.models import Problem
from interview.rendering import render_markdown
from interview.services.content_sync import sync_problems
from tests.judging_support import SOFTMAX, content_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def content(tmp_path):
    return content_with(tmp_path / "content", SOFTMAX)


def test_a_package_becomes_a_problem_with_what_the_pages_and_routing_need(content):
    report = sync_problems(content_dir=content)
    assert (report.created, report.updated) == (1, 0)
    problem = Problem.objects.get(slug=SOFTMAX)
    package = runner.load_problem(SOFTMAX, content)
    assert (problem.title, problem.difficulty, problem.needs, problem.tags) == (
        package.title, package.difficulty, package.needs, package.tags)
    assert problem.version == package.version
    assert problem.starter_code == (content / SOFTMAX / "starter.py").read_text()
    statement = (content / SOFTMAX / "statement.md").read_text()
    assert statement.startswith(f"# {problem.title}\n")
    # The page shows the title; the statement's own first heading would repeat it. The hints are carried apart.
    body = statement.split("\n", 1)[1]
    assert problem.statement_html == render_markdown(body[: body.index("## Hints")].rstrip() + "\n")
    assert problem.statement_markdown == statement
    assert problem.explanation_html and problem.explanation_markdown
    assert problem.sample_test_names == ["rows-last-dim", "large-magnitude", "middle-dim-float64"]
    assert problem.hidden_test_count == len(package.tests) - 3
    assert problem.wall_seconds == package.limits.wall_s


def test_a_second_sync_changes_nothing(content):
    sync_problems(content_dir=content)
    before = Problem.objects.get().updated_at
    report = sync_problems(content_dir=content)
    assert (report.created, report.updated, report.unchanged, report.changed) == (0, 0, 1, False)
    assert Problem.objects.get().updated_at == before


def test_a_changed_spec_gives_the_problem_a_new_version(content):
    sync_problems(content_dir=content)
    old = Problem.objects.get().version
    spec = content / SOFTMAX / "spec.py"
    spec.write_text(spec.read_text() + "\n# tolerance reviewed\n")
    report = sync_problems(content_dir=content)
    assert report.updated == 1
    assert Problem.objects.get().version not in ("", old)


def test_a_changed_statement_is_an_update_under_the_same_version(content):
    sync_problems(content_dir=content)
    old = Problem.objects.get().version
    statement = content / SOFTMAX / "statement.md"
    statement.write_text(statement.read_text() + "\nOne more hint.\n")
    assert sync_problems(content_dir=content).updated == 1
    problem = Problem.objects.get()
    # The text lands at the end of the statement, inside its last section: the hints.
    assert problem.version == old and "One more hint." in problem.hints_html[-1]


def test_a_removed_package_retires_its_problem_and_its_return_restores_it(content, tmp_path):
    sync_problems(content_dir=content)
    (content / SOFTMAX).rename(tmp_path / "aside")
    assert sync_problems(content_dir=content).retired == 1
    assert Problem.objects.get().retired_at is not None
    assert not Problem.objects.live().exists()
    (tmp_path / "aside").rename(content / SOFTMAX)
    assert sync_problems(content_dir=content).restored == 1
    assert Problem.objects.live().count() == 1


def test_a_package_that_does_not_load_stops_the_sync_naming_it_and_changes_nothing(content):
    broken = content / "broken-problem"
    broken.mkdir()
    (broken / "problem.toml").write_text('title = "Broken"\n')
    with pytest.raises(ContentError) as error:
        sync_problems(content_dir=content)
    assert "broken-problem/problem.toml" in str(error.value)
    assert not Problem.objects.exists()


def test_folders_without_a_problem_toml_are_not_problems(content):
    (content / "questions").mkdir()
    (content / "work-in-progress").mkdir()
    (content / "work-in-progress" / "reference.py").write_text("")
    sync_problems(content_dir=content)
    assert list(Problem.objects.values_list("slug", flat=True)) == [SOFTMAX]
