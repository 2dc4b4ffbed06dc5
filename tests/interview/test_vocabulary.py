"""The web app's words for verdicts, test statuses and queues are the judge's, each with a label of its own."""

import pytest

from interview.models import Queue, Status, TestStatus, Verdict
from interview.templatetags.judge_tags import LABELS, verdict_label, verdict_labels_script
from runner import verdict as runner_verdict


def test_the_verdicts_are_the_runners_in_its_order():
    assert Verdict.values == list(runner_verdict.VERDICTS)


def test_the_test_statuses_are_the_runners_in_its_order():
    assert TestStatus.values == list(runner_verdict.STATUSES)


def test_a_failing_test_status_is_the_verdict_it_produced_with_the_same_words():
    failing = [status for status in TestStatus if status not in (TestStatus.PASSED, TestStatus.SKIPPED)]
    assert [status.value for status in failing] == [v for v in Verdict.values if v != Verdict.ACCEPTED]
    assert all(status.label == Verdict(status.value).label for status in failing)


@pytest.mark.parametrize("choices", [Verdict, TestStatus, Status], ids=lambda choices: choices.__name__)
def test_every_value_has_words_of_its_own(choices):
    for member in choices:
        assert member.label != member.value and "_" not in member.label, member.value
        assert member.label[0].isupper(), member.value
        # Django makes "Wrong Answer" of a member given no label; the pages write labels in sentence case.
        assert " " not in member.label or member.label != member.name.replace("_", " ").title(), member.value


def test_the_labels_the_pages_show_are_the_models_labels():
    expected = {**dict(Verdict.choices), **dict(TestStatus.choices), **dict(Status.choices)}
    assert LABELS == expected
    assert verdict_label("forbidden") == "Forbidden call"
    assert verdict_label("internal_error") == "Judge error"
    assert verdict_label("error") == "Could not be judged"


def test_the_live_results_script_gets_the_same_labels_as_json():
    script = str(verdict_labels_script())
    assert script.startswith('<script id="verdict-labels" type="application/json">')
    for value, label in LABELS.items():
        assert f'"{value}": "{label}"' in script


def test_each_queue_names_the_device_its_workers_judge_on():
    assert Queue.CPU.device == "cpu"
    assert Queue.GPU.device == "cuda"
    assert Queue("gpu").device == "cuda"
    assert {queue.device for queue in Queue} <= {"cpu", "cuda"}
