"""A test's memory limit and peak, and its time figure: the claims from inside the sandbox against what the
trusted side observed."""

from types import SimpleNamespace

import pytest
import torch

from runner import problems
from runner.client import Observed
from runner.kit import CheckerBase
from runner.testcase import (RSS_GROWTH_SLACK_BYTES, RSS_LEVEL_SLACK_BYTES, _judge_time, _timed_memory_failure,
                             _trusted_floor_ms, case_memory_limit, copied_bytes, outside_excess, sent_checked, shown_ms,
                             trusted_peak)
from runner.verdict import TestResult

MIB = 1 << 20
TEST = problems.TestSpec("stack", {"blocks": 8})
INPUTS = {"x": torch.zeros(2)}


def problem_with(checker) -> SimpleNamespace:
    return SimpleNamespace(limits=problems.Limits(memory_ratio=1.5, memory_floor_bytes=MIB), checker=checker)


def test_without_a_bound_of_its_own_the_limit_is_the_ratio_to_the_reference():
    limit, basis = case_memory_limit(problem_with(CheckerBase()), TEST, INPUTS, 40 * MIB)
    assert limit == 60 * MIB
    assert basis == "1.5× the reference's 40.00 MiB"


def test_a_checker_bound_tighter_than_the_ratio_sets_the_limit_and_is_named():
    seen = []

    def memory_limit(params, inputs):
        seen.append((params, inputs))
        return 50 * MIB, "at most half the plain stack's 100.00 MiB"

    limit, basis = case_memory_limit(problem_with(SimpleNamespace(memory_limit=memory_limit)), TEST, INPUTS,
                                     40 * MIB)
    assert limit == 50 * MIB
    assert basis == "1.5× the reference's 40.00 MiB; at most half the plain stack's 100.00 MiB"
    assert seen == [(TEST.params, INPUTS)]


def test_a_looser_checker_bound_leaves_the_ratio_limit_but_is_still_named():
    checker = SimpleNamespace(memory_limit=lambda params, inputs: (90 * MIB, "at most 90 MiB"))
    limit, basis = case_memory_limit(problem_with(checker), TEST, INPUTS, 40 * MIB)
    assert limit == 60 * MIB and basis.endswith("; at most 90 MiB")


def test_a_checker_may_have_no_bound_for_a_test():
    checker = SimpleNamespace(memory_limit=lambda params, inputs: None)
    assert case_memory_limit(problem_with(checker), TEST, INPUTS, 40 * MIB) == (
        60 * MIB, "1.5× the reference's 40.00 MiB")


# The memory figures: the tracker's claim, unless what the trusted side observed outgrows it.

def harness(allowed: int = 0) -> SimpleNamespace:
    return SimpleNamespace(memory_allowance_bytes=allowed)


def observed(growth: int | None, level: int | None) -> Observed:
    return Observed(wall_s=0.0, cpu_s=0.0, rss_growth_bytes=growth, rss_level_bytes=level)


ONE_MIB_INPUT = {"x": torch.zeros(MIB // 4)}  # copied twice by the harness: 2 MiB allowed


def test_a_claim_matching_the_outside_growth_is_judged_as_claimed():
    user = harness()
    peak, note = trusted_peak(user, {"peak_bytes": 10 * MIB}, observed(12 * MIB, 12 * MIB), ONE_MIB_INPUT, {})
    assert (peak, note) == (10 * MIB, "")
    assert user.memory_allowance_bytes == 12 * MIB


def test_growth_past_the_claim_copies_and_slack_replaces_the_claim():
    growth = 12 * MIB + RSS_GROWTH_SLACK_BYTES + 1
    peak, note = trusted_peak(harness(), {"peak_bytes": 10 * MIB}, observed(growth, growth), ONE_MIB_INPUT, {})
    assert peak == growth and "grew by this" in note


def test_memory_touched_at_import_and_reused_shows_in_the_level():
    # The call's own growth is nothing: the buffer was resident before it began.
    level = 12 * MIB + RSS_LEVEL_SLACK_BYTES + 1
    peak, note = trusted_peak(harness(), {"peak_bytes": 10 * MIB}, observed(0, level), ONE_MIB_INPUT, {})
    assert peak == level and "before the file was loaded" in note


def test_memory_an_earlier_call_was_allowed_may_stay_resident_for_a_smaller_one():
    user = harness(allowed=100 * MIB)
    level = 100 * MIB + RSS_LEVEL_SLACK_BYTES
    peak, note = trusted_peak(user, {"peak_bytes": MIB}, observed(0, level), ONE_MIB_INPUT, {})
    assert (peak, note) == (MIB, "")
    assert user.memory_allowance_bytes == 100 * MIB


def test_without_outside_figures_the_claim_stands():
    assert trusted_peak(harness(), {"peak_bytes": 3 * MIB}, observed(None, None), ONE_MIB_INPUT, {}) == (3 * MIB, "")


def test_the_outside_excess_is_measured_against_claim_and_copies():
    user = harness(allowed=50 * MIB)
    excess = outside_excess(user, 10 * MIB, observed(15 * MIB, 60 * MIB), ONE_MIB_INPUT, {"y": torch.zeros(MIB // 4)})
    assert excess == (15 * MIB - 14 * MIB, 60 * MIB - 50 * MIB)


def test_a_timed_request_may_grow_by_four_times_the_limit_the_copies_and_the_slack_and_no_more():
    # Each call taken to hold the test's limit, 10 MiB, and glibc's heap three times that besides; 2 MiB of copies.
    allowed = 4 * 10 * MIB + 2 * MIB + RSS_GROWTH_SLACK_BYTES
    run = SimpleNamespace(user=harness())
    assert _timed_memory_failure(run, observed(allowed, 0), ONE_MIB_INPUT, {}, (10 * MIB, "a basis")) is None
    status, message = _timed_memory_failure(run, observed(allowed + 1, 0), ONE_MIB_INPUT, {}, (10 * MIB, "a basis"))
    assert status == "memory_limit_exceeded"
    assert "grew by" in message and "during the timed calls" in message and "10.00 MiB (a basis)" in message


def test_copies_are_twice_the_bytes_of_inputs_and_outputs():
    assert copied_bytes({"x": torch.zeros(4, dtype=torch.float64)}, {"y": torch.zeros(2)}) == 2 * (32 + 8)


# The time figures: on the CPU the figure judged is never below what the trusted side observed.

def timed_problem(ratio: float = 3.0, cap_ms: float = 1000.0) -> SimpleNamespace:
    return SimpleNamespace(limits=problems.Limits(time_ratio=ratio, time_cap_ms=cap_ms))


def test_on_the_cpu_the_observed_time_is_judged_whenever_it_exceeds_the_report():
    result = TestResult("timed", "passed", "")
    figures = _judge_time(timed_problem(), "cpu", result, reported_ms=1.5, observed_ms=3.2, reference_ms=1.0)
    assert figures.user_ms == 3.2 and result.status == "time_limit_exceeded"
    assert "as observed from outside the sandbox; the process reported 1.5 ms" in result.message


def test_a_report_above_the_observed_time_makes_the_verdict_worse():
    result = TestResult("timed", "passed", "")
    figures = _judge_time(timed_problem(), "cpu", result, reported_ms=3.5, observed_ms=1.0, reference_ms=1.0)
    assert figures.user_ms == 3.5 and result.status == "time_limit_exceeded"
    assert "observed from outside" not in result.message


def test_within_the_limit_both_ways_the_test_passes_on_the_larger_figure():
    result = TestResult("timed", "passed", "")
    figures = _judge_time(timed_problem(), "cpu", result, reported_ms=2.0, observed_ms=2.9, reference_ms=1.0)
    assert (figures.user_ms, result.status, result.time_ms) == (2.9, "passed", 2.9)


def test_on_cuda_the_wall_clock_overrules_only_past_twice_the_report():
    result = TestResult("timed", "passed", "")
    _judge_time(timed_problem(), "cuda", result, reported_ms=1.0, observed_ms=3.9, reference_ms=1.0)
    assert result.status == "passed" and result.time_ms == 1.0
    _judge_time(timed_problem(), "cuda", result, reported_ms=1.0, observed_ms=4.1, reference_ms=1.0)
    assert result.status == "time_limit_exceeded" and result.time_ms == 4.1


def test_the_observed_time_per_call_is_less_the_harness_overhead_the_reference_showed():
    # The reference: 4 calls timed at 1 ms and one warm-up, 8 ms in all, so 3 ms of overhead per request.
    assert _trusted_floor_ms(user_total_s=0.023, user_calls=5, ref_total_s=0.008, ref_calls=5,
                             ref_times_ns=[1_000_000] * 4) == pytest.approx(4.0)


def test_each_sides_cpu_is_spread_over_the_calls_that_side_made_in_the_round():
    # A later round: 3 calls each, no warm-up. The user's 33 ms less the reference's 3 ms of overhead is 10 ms
    # a call; spread over a warm-up that was not made it would be 7.5 ms, three quarters of what was spent.
    assert _trusted_floor_ms(user_total_s=0.033, user_calls=3, ref_total_s=0.006, ref_calls=3,
                             ref_times_ns=[1_000_000] * 3) == pytest.approx(10.0)
    # The reference's process already warmed by an earlier judgement, the user's making its warm-up call.
    assert _trusted_floor_ms(user_total_s=0.043, user_calls=4, ref_total_s=0.006, ref_calls=3,
                             ref_times_ns=[1_000_000] * 3) == pytest.approx(10.0)


@pytest.mark.parametrize("ms, shown", [
    (12.3456789, 12.0), (0.123456, 0.12), (1234.5678, 1200.0), (0.0123456, 0.012), (0.00123456, 0.001),
    (0.000499, 0.0), (9.96, 10.0), (0.0, 0.0),
])
def test_a_hidden_tests_time_is_shown_to_two_significant_figures_and_no_finer_than_a_microsecond(ms, shown):
    assert shown_ms(ms) == shown


def test_a_timed_tests_time_is_decided_on_the_figure_judged_and_shown_rounded():
    result = TestResult("timed", "passed", "")
    figures = _judge_time(timed_problem(ratio=5.0), "cpu", result, reported_ms=1.23456789, observed_ms=5.0123456,
                          reference_ms=1.0)
    assert result.status == "time_limit_exceeded"  # 5.012 ms is over 5× the reference's 1 ms, though shown as 5
    assert result.time_ms == figures.user_ms == 5.0
    assert "median 5 ms per call" in result.message and "the process reported 1.2 ms" in result.message


# A distributed problem's traffic: what each rank process wrote, less the tensors it answered with, against what
# the reference's same rank sent on the same test.

def ranks_problem(judges_sent_bytes: bool = False) -> SimpleNamespace:
    return SimpleNamespace(limits=problems.Limits(), checker=SimpleNamespace(judges_sent_bytes=judges_sent_bytes))


def written(*per_rank: int) -> Observed:
    return Observed(wall_s=0.0, cpu_s=0.0, rss_growth_bytes=0, written_bytes=dict(enumerate(per_rank)))


def test_each_rank_may_send_the_stated_ratio_of_the_reference_s_same_rank_plus_the_slack():
    limits = problems.Limits()
    reference = {"sent_bytes": [1 << 20, 2 << 20]}
    answered = {"out@0": torch.zeros(256), "out@1": torch.zeros(256)}  # 1 KiB each, not counted as sent
    within = [int(limits.sent_ratio * size + limits.sent_slack_bytes) for size in reference["sent_bytes"]]
    assert sent_checked(ranks_problem(), TEST, answered, written(within[0] + 1024, within[1] + 1024), reference) is None
    message = sent_checked(ranks_problem(), TEST, answered, written(within[0] + 1024, within[1] + 1025), reference)
    assert message.startswith("rank 1's process wrote") and "1.25× the 2048.0 KiB the reference's rank 1 sent" in message


def test_a_rank_whose_bytes_could_not_be_read_fails_and_a_problem_without_ranks_has_no_rule():
    reference = {"sent_bytes": [100]}
    unread = Observed(wall_s=0.0, cpu_s=0.0, rss_growth_bytes=0)
    assert "could not be read from outside the sandbox" in sent_checked(ranks_problem(), TEST, {}, unread, reference)
    assert sent_checked(ranks_problem(), TEST, {}, unread, {}) is None
