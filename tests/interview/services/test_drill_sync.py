"""Drills sync with the bank: the database follows the drill files, idempotently and all or nothing."""

import pytest

from interview.content.errors import ContentError
from interview.models import Drill, Question
from interview.services.content_sync import sync_questions

pytestmark = pytest.mark.django_db

DRILL = """
id = "kv-bytes"
title = "KV bytes per token"
topic = "attention"
difficulty = "easy"
prompt = "{layers} layers, {kv_heads} KV heads of 128: how many bytes of bf16 KV cache per token?"
answer_unit = "KiB"
tolerance = 0.1
related = ["gqa"]

[parameters]
layers = { from = 16, to = 32, step = 16 }
kv_heads = [1, 8]

[[steps]]
name = "values"
says = "K and V per head per layer"
formula = "2 * layers * kv_heads * 128"

[[steps]]
name = "bytes"
says = "2 bytes each"
formula = "FORMULA"
unit = "B"

[[citations]]
what = "bf16 is 2 bytes"
source = "IEEE 754-2019"
"""


def write_drill(content, formula: str = "2 * values", slug: str = "kv-bytes"):
    return content.write_raw(f"drills/attention/{slug}.toml",
                             DRILL.replace("FORMULA", formula).replace('"kv-bytes"', f'"{slug}"'))


def drill_report(reports):
    return next(str(report) for report in reports if report.kind == "Drills")


def test_a_drill_file_becomes_a_drill_and_a_second_sync_changes_nothing(content):
    content.write_question("gqa")
    write_drill(content)
    assert drill_report(sync_questions(content_dir=content.root)).startswith("Drills: 1 created")
    drill = Drill.objects.get(slug="kv-bytes")
    assert drill.spec["parameters"]["layers"] == [16, 32]
    assert list(drill.related.all()) == [Question.objects.get(slug="gqa")]
    assert drill.source_path == "drills/attention/kv-bytes.toml"
    assert drill_report(sync_questions(content_dir=content.root)) == (
        "Drills: 0 created, 0 updated, 1 unchanged, 0 retired, 0 restored")


def test_a_changed_formula_updates_the_drill_and_a_removed_file_retires_it(content):
    content.write_question("gqa")
    path = write_drill(content)
    sync_questions(content_dir=content.root)
    write_drill(content, formula="values * 2")
    assert "1 updated" in drill_report(sync_questions(content_dir=content.root))
    assert Drill.objects.get().spec["steps"][1]["formula"] == "values * 2"
    path.unlink()
    assert "1 retired" in drill_report(sync_questions(content_dir=content.root))
    assert Drill.objects.get().retired_at is not None


@pytest.mark.parametrize("formula, message", [
    ("values.__class__", "Attribute is not allowed"),
    ("values / (layers - layers)", "cannot be evaluated"),
    ("2 * unknown", "formula reads unknown"),
])
def test_an_invalid_drill_stops_the_sync_with_nothing_changed(content, formula, message):
    content.write_question("gqa")
    write_drill(content, slug="good")
    write_drill(content, formula=formula)
    with pytest.raises(ContentError, match=message) as error:
        sync_questions(content_dir=content.root)
    assert "drills/attention/kv-bytes.toml" in str(error.value)
    assert not Drill.objects.exists() and not Question.objects.exists()


def test_a_drill_whose_units_do_not_convert_or_whose_related_question_is_unknown_is_refused(content):
    write_drill(content)
    content.write_raw("drills/attention/kv-bytes.toml",
                      DRILL.replace("FORMULA", "2 * values").replace('answer_unit = "KiB"', 'answer_unit = "s"'))
    with pytest.raises(ContentError) as error:
        sync_questions(content_dir=content.root)
    assert "'gqa' is not the id of a question in the bank" in str(error.value)
    content.write_question("gqa")
    with pytest.raises(ContentError, match="does not convert to the answer's unit 's'"):
        sync_questions(content_dir=content.root)
