"""The plan of a judgement's lanes, as a pure function of its tests and their costs: no sandbox runs here."""

from __future__ import annotations

import pytest

from runner import problems
from runner.cache import TIMED_CALL_NS
from runner.judging.plan import LANE_MIN_S, Lane, cached_costs, most_lanes, plan, timed_calls
from runner.problems import Limits


def spec(name: str, *, sample: bool = False, timed: bool = False) -> problems.TestSpec:
    return problems.TestSpec(name, {}, sample=sample, timed=timed)


SAMPLES = [spec("sample-1", sample=True), spec("sample-2", sample=True)]
HIDDEN = [spec(f"hidden-{index}") for index in range(4)]
TIMED = spec("timed", timed=True)
TESTS = SAMPLES + HIDDEN + [TIMED]


def names(lanes: list[Lane]) -> list[list[str]]:
    return [[test.name for test in lane.tests] for lane in lanes]


def test_the_split_is_the_one_whose_longer_lane_is_shortest():
    lanes = plan(TESTS, [0.1, 0.1, 0.5, 0.5, 0.5, 0.4, 1.0], most=2)
    assert names(lanes) == [["sample-1", "sample-2", "hidden-0", "hidden-1", "hidden-2"], ["hidden-3", "timed"]]
    assert [lane.start for lane in lanes] == [0, 5]
    assert [list(lane.indices) for lane in lanes] == [[0, 1, 2, 3, 4], [5, 6]]


def test_the_first_lane_holds_the_sample_tests_even_where_a_split_among_them_would_be_more_even():
    lanes = plan([spec("s-1", sample=True), spec("s-2", sample=True), spec("h-1"), spec("h-2")],
                 [2.0, 2.0, 2.0, 2.0], most=2)
    assert names(lanes) == [["s-1", "s-2"], ["h-1", "h-2"]]
    lanes = plan([spec("s-1", sample=True), spec("s-2", sample=True), spec("s-3", sample=True), spec("h-1")],
                 [2.0, 2.0, 2.0, 2.0], most=2)
    assert names(lanes) == [["s-1", "s-2", "s-3"], ["h-1"]]


def test_a_timed_test_is_never_in_the_first_lane():
    tests = SAMPLES + [spec("hidden-0"), TIMED, spec("hidden-1"), spec("hidden-2")]
    # The most even split would put the timed test first; the only one allowed puts it second.
    assert names(plan(tests, [0.1, 0.1, 1.0, 3.0, 1.0, 1.0], most=2)) == [
        ["sample-1", "sample-2", "hidden-0"], ["timed", "hidden-1", "hidden-2"]]
    # With too little before it, there is no second lane at all.
    assert len(plan(tests, [0.1, 0.1, 0.1, 3.0, 1.0, 1.0], most=2)) == 1


def test_a_timed_first_hidden_test_leaves_only_the_sample_tests_before_it():
    tests = SAMPLES + [TIMED, spec("hidden-0")]
    assert names(plan(tests, [LANE_MIN_S, LANE_MIN_S, 1.0, 1.0], most=2)) == [["sample-1", "sample-2"], ["timed", "hidden-0"]]


def test_each_lane_needs_LANE_MIN_S_of_work():
    just = LANE_MIN_S / 2
    assert len(plan(TESTS, [0.0, 0.0, just, just, just, just, 0.0], most=2)) == 2
    below = just * 0.99
    assert names(plan(TESTS, [0.0, 0.0, below, below, below, below, 0.0], most=2)) == [[test.name for test in TESTS]]


def test_one_lane_when_no_cost_is_known_or_one_is_all_that_is_allowed():
    costs = [1.0] * len(TESTS)
    assert plan(TESTS, None, most=2) == [Lane(0, tuple(TESTS))]
    assert plan(TESTS, costs, most=1) == [Lane(0, tuple(TESTS))]
    assert len(plan(TESTS, costs, most=2)) == 2
    # A judgement of one test, or of sample tests only, has nothing to split.
    assert len(plan(TESTS[:1], [5.0], most=2)) == 1
    assert len(plan(SAMPLES, [5.0, 5.0], most=2)) == 1


def test_a_judgement_with_an_uncached_test_has_no_costs():
    answers = [{"time_ns": 10**8}] * (len(TESTS) - 1)
    assert cached_costs(TESTS, answers + [None], Limits()) is None
    assert cached_costs(TESTS, [None] + answers, Limits()) is None


def test_a_checked_call_costs_the_reference_s_own_time_and_a_timed_test_its_rounds_too():
    limits = Limits(time_ratio=1.7, time_cap_ms=4000, timed_rounds=3, timed_iterations=2)
    costs = cached_costs([spec("checked"), TIMED], [{"time_ns": 200_000_000}, {"time_ns": 200_000_000}], limits)
    assert costs[0] == pytest.approx(0.2)
    # Not timed yet: each timed call is estimated as its checked call.
    assert costs[1] == pytest.approx(0.2 + 0.2 * timed_calls(limits, 0.2))
    timed = cached_costs([TIMED], [{"time_ns": 200_000_000, TIMED_CALL_NS: 100_000_000}], limits)
    assert timed == [pytest.approx(0.2 + 0.1 * timed_calls(limits, 0.1))]


def test_a_timed_test_s_calls_are_a_warm_up_and_every_round_s_unless_the_first_is_decisive():
    limits = Limits(time_ratio=1.7, time_cap_ms=4000, timed_rounds=3, timed_iterations=2)
    assert timed_calls(limits, 0.1) == 2 * (1 + 3 * 2)
    # A limit of several times the reference puts a submission as fast as it under a third of it in one round.
    assert timed_calls(Limits(time_ratio=5.0, time_cap_ms=4000, timed_rounds=3, timed_iterations=5), 0.1) == 2 * (1 + 5)
    # Unless the cap is near the reference's own call: then every round runs.
    assert timed_calls(Limits(time_ratio=5.0, time_cap_ms=200, timed_rounds=3, timed_iterations=5), 0.1) == 2 * (1 + 3 * 5)


@pytest.mark.parametrize("rule", [
    dict(device="cuda"), dict(distributed=True), dict(stops_at_first_failure=True), dict(shared_reference=True),
])
def test_cuda_a_distributed_problem_a_stop_at_the_first_failure_and_a_shared_reference_keep_one_lane(rule):
    allowed = dict(device="cpu", distributed=False, stops_at_first_failure=False, shared_reference=False)
    assert most_lanes(2, **allowed) == 2
    assert most_lanes(1, **allowed) == 1
    assert most_lanes(2, **{**allowed, **rule}) == 1
