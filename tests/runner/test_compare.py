"""The trusted side's comparison of an output with its float64 truth (runner/compare.py) and the tolerance it
is allowed (runner/kit/checks.py): one pass decides an output finite and close everywhere, and every other
case keeps its full account."""

from __future__ import annotations

import math

import pytest
import torch

from runner import compare
from runner.kit import checks

INF, NAN = math.inf, math.nan


def test_an_output_within_the_tolerance_everywhere_matches_and_is_left_as_it_was():
    truth = torch.linspace(-3, 3, 1000, dtype=torch.float64)
    got = truth + 1e-7
    before = got.clone()
    assert compare.tensors("y", got, truth, atol=1e-6, rtol=0) is None
    assert torch.equal(got, before)


@pytest.mark.parametrize(("got", "truth", "words"), [
    ([1.0, NAN, 3.0], [1.0, 2.0, 3.0], "1 non-finite values where the reference is finite (first at (1): nan)"),
    ([1.0, INF, 3.0], [1.0, 2.0, 3.0], "1 non-finite values where the reference is finite (first at (1): inf)"),
    ([1.0, 2.5, 3.0], [1.0, 2.0, 3.0], "1 of 3 values differ; largest error 0.5 at (1)"),
    ([1.0, -INF, 3.0], [1.0, INF, 3.0], "1 of 3 values differ; largest error inf at (1)"),
    ([1.0, 2.0, 3.0], [1.0, INF, 3.0], "1 of 3 values differ; largest error inf at (1)"),
])
def test_an_output_off_anywhere_says_where_and_how(got, truth, words):
    message = compare.tensors("y", torch.tensor(got, dtype=torch.float64), torch.tensor(truth, dtype=torch.float64),
                              atol=1e-3, rtol=0)
    assert message is not None and words in message, message


def test_equal_infinities_and_nans_on_both_sides_are_no_error():
    truth = torch.tensor([1.0, INF, -INF, NAN], dtype=torch.float64)
    assert compare.tensors("y", truth.clone(), truth, atol=1e-3, rtol=0) is None


def test_a_relative_tolerance_scales_with_the_expected_value():
    truth = torch.tensor([1.0, 1000.0], dtype=torch.float64)
    assert compare.tensors("y", truth + torch.tensor([0.0, 0.5], dtype=torch.float64), truth, atol=0, rtol=1e-3) is None
    assert compare.tensors("y", truth + torch.tensor([0.5, 0.0], dtype=torch.float64), truth, atol=0, rtol=1e-3)
    infinite = torch.tensor([1.0, INF], dtype=torch.float64)
    message = compare.tensors("y", torch.tensor([1.0, 1e300], dtype=torch.float64), infinite, atol=0, rtol=1e-3)
    assert message and "1 of 2 values differ; largest error inf at (1)" in message, message


def test_the_tolerance_is_the_references_error_or_rounding_of_the_finite_magnitude():
    truth = torch.tensor([1.0, -40.0, 2.0], dtype=torch.float64)
    expected = (truth + torch.tensor([0.0, 1e-3, 0.0], dtype=torch.float64)).float()
    assert checks.tolerance(torch.float32, expected, truth, reference_multiple=2, rounding_units=0) == pytest.approx(2e-3, rel=1e-3)
    eps = torch.finfo(torch.float32).eps
    assert checks.tolerance(torch.float32, truth.float(), truth, rounding_units=4) == pytest.approx(4 * eps * 40)
    # An infinite truth, which the output must equal, takes no part in either figure.
    with_inf = torch.tensor([1.0, INF, -40.0], dtype=torch.float64)
    assert checks.tolerance(torch.float32, with_inf.float(), with_inf, rounding_units=4) == pytest.approx(4 * eps * 40)


def test_no_tolerance_for_integers_an_empty_output_or_a_truth_with_nothing_finite():
    truth = torch.tensor([INF, NAN], dtype=torch.float64)
    assert checks.tolerance(torch.float32, truth.float(), truth) == 0.0
    assert checks.tolerance(torch.int64, torch.ones(3), torch.ones(3, dtype=torch.float64)) == 0.0
    assert checks.tolerance(torch.float32, torch.ones(0), torch.ones(0, dtype=torch.float64)) == 0.0
