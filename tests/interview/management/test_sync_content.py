"""The sync_content command: what it prints, and how it fails."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from interview.models import Question

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("sync_content", *args, stdout=out)
    return out.getvalue()


def test_it_prints_the_counts_of_each_kind(content):
    content.write_question("sdpa")
    output = run("--content-dir", str(content.root))
    assert output.splitlines() == [
        "Topics: 2 created, 0 updated, 0 unchanged, 0 retired, 0 restored",
        "Questions: 1 created, 0 updated, 0 unchanged, 0 retired, 0 restored",
        "Drills: 0 created, 0 updated, 0 unchanged, 0 retired, 0 restored",
        "Problems: 0 created, 0 updated, 0 unchanged, 0 retired, 0 restored",
        "Problem follow-ups: 0 created, 0 updated, 0 unchanged, 0 retired, 0 restored",
        "Problem topics: 0 created, 0 updated, 0 unchanged, 0 retired, 0 restored",
        "Problem sets: 0 created, 0 updated, 0 unchanged, 0 retired, 0 restored",
    ]


def test_a_second_run_says_that_nothing_changed(content):
    content.write_question("sdpa")
    run("--content-dir", str(content.root))
    output = run("--content-dir", str(content.root))
    assert "Questions: 0 created, 0 updated, 1 unchanged, 0 retired, 0 restored" in output
    assert output.splitlines()[-1] == "Nothing changed."


def test_it_reads_the_configured_content_folder_by_default(content, settings):
    settings.CONTENT_DIR = content.root
    content.write_question("sdpa")
    run()
    assert Question.objects.filter(slug="sdpa").exists()


def test_a_dry_run_reports_the_changes_and_saves_nothing(content):
    content.write_question("sdpa")
    output = run("--content-dir", str(content.root), "--dry-run")
    assert "Questions: 1 created" in output
    assert output.splitlines()[-1] == "Dry run: nothing was saved."
    assert not Question.objects.exists()


def test_invalid_content_fails_naming_the_file_and_field_and_changes_nothing(content):
    content.write_question("sdpa")
    content.write_question("broken", difficulty="impossible")
    with pytest.raises(CommandError) as error:
        run("--content-dir", str(content.root))
    message = str(error.value)
    assert (
        "questions/attention/broken.md: difficulty: 'impossible' is not one of easy, medium, hard" in message
    )
    assert message.endswith("Nothing was changed.")
    assert not Question.objects.exists()


def test_a_missing_content_folder_is_an_error(tmp_path):
    with pytest.raises(CommandError, match="does not exist"):
        run("--content-dir", str(tmp_path / "nowhere"))
