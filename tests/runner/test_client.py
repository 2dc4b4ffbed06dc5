"""An answer from the sandbox is hostile input: every field the judge reads is checked before anything reads it."""

import pytest

from types import SimpleNamespace

from runner.client import MAX_FIGURE, RANK_CODE_PAGES_BYTES, Harness, checked_answer
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


# What the trusted side makes of the resident sets it read around a request (Harness._memory_figures).

MIB = 1 << 20
HARNESS, RANK = 3, 4


def figures(before, peaks, files_before=None, files_after=None, outside=(0, 0, 0)):
    """(growth, level) for a harness at 100 MiB and a rank at 200 MiB before the load, the rank's file-backed
    pages 50 MiB then; outside: what the sandbox held beside its processes at the load, before the request
    and at its peak."""
    harness = SimpleNamespace(rss_base_bytes={HARNESS: 100 * MIB, RANK: 200 * MIB}, file_base_bytes={RANK: 50 * MIB},
                              outside_base_bytes=outside[0],
                              process=SimpleNamespace(outside_peak_bytes=outside[2], outside_bytes=outside[1]))
    return Harness._memory_figures(harness, before, peaks, outside[1], files_before or {}, files_after or {})


def test_the_growth_is_the_most_any_process_of_the_submission_grew_plus_what_the_sandbox_s_files_gained():
    growth, level = figures({HARNESS: 100 * MIB, RANK: 200 * MIB}, {HARNESS: 101 * MIB, RANK: 456 * MIB},
                            outside=(0, 0, 0))
    assert growth == 256 * MIB and level == 256 * MIB
    growth, level = figures({HARNESS: 100 * MIB, RANK: 200 * MIB}, {HARNESS: 101 * MIB, RANK: 201 * MIB},
                            outside=(5 * MIB, 10 * MIB, 110 * MIB))
    assert growth == 101 * MIB and level == 106 * MIB


def test_a_rank_s_first_run_of_library_code_is_left_out_but_no_more_than_the_cap():
    before, files_before = {HARNESS: 100 * MIB, RANK: 200 * MIB}, {RANK: 50 * MIB}
    growth, _ = figures(before, {HARNESS: 100 * MIB, RANK: 230 * MIB}, files_before, {RANK: 80 * MIB})
    assert growth == 0
    huge = 50 * MIB + RANK_CODE_PAGES_BYTES + 512 * MIB  # a large file mapped to hide a peak behind it
    growth, _ = figures(before, {HARNESS: 100 * MIB, RANK: 200 * MIB + 1024 * MIB}, files_before, {RANK: huge})
    assert growth == 1024 * MIB - RANK_CODE_PAGES_BYTES


def test_a_process_whose_figures_could_not_be_read_leaves_the_growth_unknown():
    assert figures({HARNESS: 100 * MIB, RANK: None}, {HARNESS: 101 * MIB, RANK: 300 * MIB}) == (None, None)
