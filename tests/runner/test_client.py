"""An answer from the sandbox is hostile input: every field the judge reads is checked before anything reads it."""

import pytest

from runner.client import MAX_FIGURE, checked_answer
from runner.sandbox import Ended
from runner.sandbox.process import PROTOCOL


def _broken(header, expected_type="result", timed_calls=None) -> str:
    with pytest.raises(Ended) as ended:
        checked_answer(header, expected_type, timed_calls)
    assert ended.value.cause == PROTOCOL
    return ended.value.detail


def test_an_honest_answer_keeps_the_fields_the_judge_reads_and_nothing_else():
    answer = checked_answer({"type": "result", "peak_bytes": 12, "time_ns": 5, "forbidden": [], "tamper": [],
                             "modified_inputs": ["x"], "op_counts": {"aten::mm.default": 3}}, "result")
    assert answer["peak_bytes"] == 12 and answer["time_ns"] == 5 and answer["modified_inputs"] == ["x"]
    assert "op_counts" not in answer


def test_figures_as_large_as_a_64_bit_counter_holds_are_taken():
    answer = checked_answer({"type": "result", "time_ns": MAX_FIGURE, "peak_bytes": MAX_FIGURE}, "result")
    assert answer["time_ns"] == answer["peak_bytes"] == MAX_FIGURE


@pytest.mark.parametrize("key", ["peak_bytes", "time_ns", "cuda_peak_bytes", "cuda_base_bytes"])
@pytest.mark.parametrize("value", [10**400, MAX_FIGURE + 1, -1, True, 1.5, "1", [1], float("inf")])
def test_a_figure_that_is_not_a_count_below_2_63_is_a_broken_answer(key, value):
    assert "malformed answer" in _broken({"type": "result", key: value})


@pytest.mark.parametrize("missing", ["time_ns", "peak_bytes"])
def test_a_result_without_its_figures_is_a_broken_answer_unless_the_call_failed(missing):
    header = {"type": "result", "time_ns": 5, "peak_bytes": 12}
    del header[missing]
    assert "without its time_ns and peak_bytes" in _broken(header)
    failed = checked_answer({**header, "error": {"status": "wrong_answer", "message": "cannot be returned"}},
                            "result")
    assert failed[missing] is None


@pytest.mark.parametrize("times", [[10**400] * 2, [1, -1], [1, True], [1], [1, 2, 3], "12", None])
def test_timed_calls_need_one_bounded_count_each(times):
    assert "times_ns" in _broken({"type": "timed", "times_ns": times}, "timed", timed_calls=2)


@pytest.mark.parametrize("status", [["passed"], {"a": 1}, None, 3, "passed", "accepted"])
def test_an_error_status_must_be_one_the_harness_may_report(status):
    assert "status the harness cannot report" in _broken({"type": "result",
                                                          "error": {"status": status, "message": ""}})


@pytest.mark.parametrize("error", [["runtime_error"], "runtime_error", {"status": "runtime_error"},
                                   {"status": "runtime_error", "message": ["x"]}])
def test_an_error_must_be_a_status_and_a_message(error):
    _broken({"type": "result", "error": error})


@pytest.mark.parametrize("key", ["forbidden", "tamper", "modified_inputs"])
@pytest.mark.parametrize("values", ["x", [1], [["x"]], ["x"] * 5000])
def test_reported_names_are_a_bounded_list_of_strings(key, values):
    assert key in _broken({"type": "result", key: values})


@pytest.mark.parametrize("kind", [None, ["result"], {"type": "result"}, "loaded", "r" * 10_000])
def test_a_frame_of_another_type_is_a_broken_answer_and_the_complaint_stays_short(kind):
    assert len(_broken({"type": kind})) < 200


def test_text_is_kept_short_and_storable():
    answer = checked_answer({"type": "result", "forbidden": ["a\0b\ud800" + "x" * 500] * 50,
                             "error": {"status": "runtime_error", "message": "y" * 20_000 + "\0\udfff"}},
                            "result")
    assert len(answer["forbidden"]) == 20 and len(answer["forbidden"][0]) == 200
    assert answer["forbidden"][0].startswith("a\ufffdb?")
    message = answer["error"]["message"]
    assert len(message) == 8000 and message.endswith("\ufffd?")
    for text in [*answer["forbidden"], message]:
        text.encode("utf-8")
