"""Verdict names, statuses and precedence: the contract the web app stores."""

import pytest

from runner.verdict import STATUSES, VERDICTS, TestResult, Verdict, overall, ratio, split_why, with_why


def test_the_verdict_names_are_the_contracts():
    assert VERDICTS == ("accepted", "wrong_answer", "time_limit_exceeded", "memory_limit_exceeded",
                        "runtime_error", "compile_error", "forbidden", "internal_error")
    assert set(STATUSES) == {"passed", "skipped"} | set(VERDICTS) - {"accepted"}


def test_the_overall_verdict_is_the_first_test_that_did_not_pass():
    tests = [TestResult("a", "passed"), TestResult("b", "time_limit_exceeded"), TestResult("c", "wrong_answer")]
    assert overall(tests) == "time_limit_exceeded"


def test_skipped_tests_after_a_failure_do_not_change_the_verdict():
    assert overall([TestResult("a", "runtime_error"), TestResult("b", "skipped")]) == "runtime_error"


def test_every_test_passing_is_accepted():
    assert overall([TestResult("a", "passed"), TestResult("b", "passed")]) == "accepted"


def test_nothing_judged_is_never_accepted():
    assert overall([TestResult("a", "skipped")]) == "internal_error"


@pytest.mark.parametrize("bad", ["accepted", "ok", ""])
def test_unknown_statuses_are_refused(bad):
    with pytest.raises(ValueError):
        TestResult("a", bad)
    if bad != "accepted":
        with pytest.raises(ValueError):
            Verdict(problem="p", verdict=bad)


def test_the_json_form_has_every_contract_field_and_nulls_for_what_was_not_measured():
    data = Verdict(problem="p", verdict="compile_error", tests=[TestResult("a", "compile_error", "bad")]).to_json()
    for key in ("problem", "verdict", "tests", "device", "sandbox", "time", "memory", "stdout", "stderr",
                "judge_version", "seed_index"):
        assert key in data
    assert data["time"] == {"user_ms": None, "reference_ms": None, "ratio": None}
    assert data["memory"] == {"user_peak_bytes": None, "reference_peak_bytes": None, "ratio": None}
    assert data["tests"][0] == {"name": "a", "status": "compile_error", "message": "bad", "time_ms": None,
                                "peak_bytes": None, "why": ""}


def test_a_checkers_why_is_kept_apart_and_a_message_without_one_is_whole():
    assert split_why(with_why("y: 3 of 4 values differ", "Subtract the maximum.")) == (
        "y: 3 of 4 values differ", "Subtract the maximum.")
    assert split_why("y: 3 of 4 values differ") == ("y: 3 of 4 values differ", "")
    assert with_why("y differs", "") == "y differs"


def test_a_ratio_without_both_figures_is_null():
    assert ratio(None, 2.0) is None and ratio(1.0, 0) is None and ratio(3.0, 2.0) == 1.5
