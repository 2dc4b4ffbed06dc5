"""Answers with units, and the grading curve at the tolerance's edges."""

import math

import pytest

from interview.estimation.grading import grade
from interview.estimation.units import AnswerRefused, format_number, parse_answer


@pytest.mark.parametrize("typed, unit, expected", [
    ("140 GB", "GB", 140),
    ("140GB", "GB", 140),
    ("1.4e2 GB", "GB", 140),
    ("1,400 GB", "GB", 1400),
    ("130.385 GiB", "GB", 130.385 * 2**30 / 1e9),
    ("0.14 TB", "GB", 140),
    ("1120 Gb", "GB", 140),              # gigabits, not the gilbert
    ("400 Gb/s", "GB/s", 50),
    ("320 KiB", "B", 327680),
    ("1.2e3 TFLOP", "PFLOP", 1.2),
    ("3.15e23 FLOPs", "FLOP", 3.15e23),
    ("35 %", "%", 35),
    ("0.35", "%", 35),
    ("2.4x", "x", 2.4),
    ("2.4", "", 2.4),
    ("12.9 billion params", "billion param", 12.9),
    ("1.29e10 param", "billion param", 12.9),
    ("600 us", "µs", 600),
    ("0.6 ms", "µs", 600),
    ("36 hours", "day", 1.5),
    ("300 tokens/s", "token/s", 300),
])
def test_an_answer_is_read_as_a_number_and_a_unit_and_converted_to_the_drills_unit(typed, unit, expected):
    assert parse_answer(typed, unit=unit, right_value=expected) == pytest.approx(expected)


@pytest.mark.parametrize("typed, unit, message", [
    ("", "GB", "Type a number with its unit"),
    ("   ", "GB", "Type a number with its unit"),
    ("about a hundred", "GB", "does not start with a number"),
    ("GB 140", "GB", "does not start with a number"),
    ("140 GB/s", "GB", "a quantity of information per time, but this drill asks for a quantity of information"),
    ("50 GB", "GB/s", "but this drill asks for a quantity of information per time"),
    ("140", "GB", "is a plain number, but this drill asks for a quantity of information"),
    ("3 TFLOP", "GB", "a quantity of computation"),
    ("140 parsecs", "GB", "is not a unit I know"),
    ("140 GB; import os", "GB", "is not a unit"),
    ("__import__('os')", "GB", "does not start with a number"),
    ("0 GB", "GB", "positive, finite number"),
    ("-5 GB", "GB", "positive, finite number"),
    ("1e999 GB", "GB", "positive, finite number"),
    ("140 PB", "GB", "a million times off"),
    ("140 B", "GB", "a million times off"),
    ("1" * 100, "GB", "at most 80 characters"),
    ("1 (GB)^9^9^9", "GB", "is not a unit"),       # a power that would never finish computing
    ("1 GB**99999999", "GB", "is not a unit"),
    ("2 GB*GB", "GB", "is not a unit"),
    ("2 GB/", "GB", "is not a unit I know"),         # pint's parser asserts on a dangling operator
])
def test_an_answer_that_cannot_be_graded_is_refused_with_a_reason(typed, unit, message):
    with pytest.raises(AnswerRefused, match=message.replace("(", r"\(")):
        parse_answer(typed, unit=unit, right_value=140)


def test_full_credit_within_the_tolerance_on_either_side():
    assert grade(110, 100, 0.1) == 1.0
    assert grade(90, 100, 0.1) == 1.0
    assert grade(100, 100, 0.1) == 1.0


def test_just_outside_the_tolerance_the_score_drops_below_full_credit():
    assert 0.99 < grade(110.01, 100, 0.1) < 1.0
    assert 0.99 < grade(89.99, 100, 0.1) < 1.0


def test_the_score_falls_linearly_in_orders_of_magnitude_to_zero_at_ten_times_off():
    edge = math.log10(1.1)
    half_way = 10 ** ((1 + edge) / 2)
    assert grade(100 * half_way, 100, 0.1) == pytest.approx(0.5)
    assert grade(100 / half_way, 100, 0.1) == pytest.approx(0.5)
    assert grade(1000, 100, 0.1) == 0.0
    assert grade(10, 100, 0.1) == 0.0
    assert grade(5000, 100, 0.1) == 0.0


def test_numbers_are_written_as_a_worked_solution_writes_them():
    assert [format_number(v) for v in (8192, 3.35, 7.5e9, 1.875e9, 0.25, 1e-4, 0)] == [
        "8192", "3.35", "7.5e9", "1.88e9", "0.25", "1e-4", "0"]
