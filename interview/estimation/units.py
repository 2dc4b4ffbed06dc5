"""Units of drill answers, through pint with a registry of the project's own (units.txt).

A user's answer is a number, then a unit ("140 GB", "1.2e3 TFLOP", "35 %", "2.4x"). The number is read by a
regular expression and the unit by pint's unit parser alone, so nothing typed is ever evaluated as an
expression. The answer is refused, with a message that says why, when it is empty, has no number, names a
unit pint does not know, measures another kind of quantity than the drill asks for, or is absurd.
"""

import math
import re
from functools import lru_cache
from pathlib import Path

import pint

MAX_ANSWER_LENGTH = 80
# An answer a million times off is a slip of the unit (MB for TB), not an estimate: it is refused, not scored.
ABSURD_FACTOR = 1e6
_NUMBER = re.compile(r"\s*(?P<number>[+-]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(?P<unit>.*)\Z", re.S)
# Letters, spaces and "/" are all an answer's unit needs (GB, FLOP/B, tokens/s, %, x): with no digits, powers or
# parentheses, pint's unit parser is never asked to raise a unit to a power like 9^9^9, which would not end.
_UNIT_TEXT = re.compile(r"[A-Za-zµ%× /]*")


class AnswerRefused(ValueError):
    """An answer that cannot be graded; the message tells the user what to type instead."""


@lru_cache(maxsize=1)
def registry() -> pint.UnitRegistry:
    units = pint.UnitRegistry(None)
    units.load_definitions(str(Path(__file__).with_name("units.txt")))
    return units


@lru_cache(maxsize=256)
def parse_unit(text: str) -> pint.Unit:
    """A unit as a drill file names it ("GB", "FLOP/s", "" for a plain number); ValueError if pint knows none."""
    try:
        return registry().parse_units(text.replace("×", "x").strip())
    except Exception as error:  # noqa: BLE001 - pint's parser fails on malformed text in many ways ("GB/" asserts)
        raise ValueError(f"{text!r} is not a unit this project knows: {error}") from None


def same_dimension(first: str, second: str) -> bool:
    return parse_unit(first).dimensionality == parse_unit(second).dimensionality


def convert(value: float, source: str, target: str) -> float:
    """value in unit source, expressed in unit target (both of the same dimension)."""
    return registry().Quantity(value, parse_unit(source)).to(parse_unit(target)).magnitude


def unit_label(unit: str) -> str:
    """How a drill's unit is written beside a number: "GB", "FLOP/s"; blank for a plain number."""
    return "" if parse_unit(unit).dimensionless and unit.strip() in ("", "x") else unit.strip()


def _kind(unit: pint.Unit) -> str:
    dimensionality = str(unit.dimensionality).strip("[]")
    if dimensionality == "dimensionless":
        return "a plain number"
    return "a quantity of " + dimensionality.replace("] / [", " per ").replace("[", "").replace("]", "")


def parse_answer(text: str, *, unit: str, right_value: float) -> float:
    """The answer's value expressed in unit; AnswerRefused for anything that cannot be graded.

    right_value (in unit) only bounds what is absurd: an answer ABSURD_FACTOR or more away either way.
    """
    example = f"for example “{_example(unit)}”"
    text = (text or "").strip()
    if not text:
        raise AnswerRefused(f"Type a number with its unit, {example}.")
    if len(text) > MAX_ANSWER_LENGTH:
        raise AnswerRefused(f"An answer is at most {MAX_ANSWER_LENGTH} characters: a number and a unit.")
    match = _NUMBER.match(text)
    if match is None:
        raise AnswerRefused(f"“{text}” does not start with a number; type a number, then its unit, {example}.")
    number = float(match["number"].replace(",", "").replace("_", ""))
    unit_text = match["unit"].strip()
    if not _UNIT_TEXT.fullmatch(unit_text):
        raise AnswerRefused(f"“{unit_text}” is not a unit; {example}.")
    try:
        typed = parse_unit(unit_text)
    except ValueError:
        raise AnswerRefused(f"“{unit_text}” is not a unit I know; {example}.") from None
    wanted = parse_unit(unit)
    if typed.dimensionality != wanted.dimensionality:
        shown = unit_label(unit) or "a plain number"
        raise AnswerRefused(f"“{text}” is {_kind(typed)}, but this drill asks for {_kind(wanted)} ({shown}); "
                            f"{example}.")
    try:
        value = registry().Quantity(number, typed).to(wanted).magnitude
    except (OverflowError, pint.errors.PintError):
        raise AnswerRefused(f"“{text}” is too large a number to grade.") from None
    if not math.isfinite(value) or value <= 0:
        raise AnswerRefused("The answer must be a positive, finite number: every drill asks for a size, a time, "
                            "a rate or a ratio.")
    if not 1 / ABSURD_FACTOR < value / right_value < ABSURD_FACTOR:
        raise AnswerRefused(f"“{text}” is more than a million times off in one direction or the other: check "
                            f"the unit's prefix (k, M, G, T; Ki, Mi, Gi), then answer again.")
    return value


def format_number(value: float, significant: int = 3) -> str:
    """A value as a worked solution writes it: 8192, 3.35, 7.5e9 (scientific from a million, or below 1e-3)."""
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 1e6 or magnitude < 1e-3:
        mantissa, exponent = f"{value:.{significant - 1}e}".split("e")
        if "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}e{int(exponent)}"
    digits = max(0, significant - 1 - math.floor(math.log10(magnitude)))
    shown = f"{round(value, digits):.{digits}f}"
    return shown.rstrip("0").rstrip(".") if "." in shown else shown


def format_quantity(value: float, unit: str, significant: int = 3) -> str:
    label = unit_label(unit)
    return f"{format_number(value, significant)} {label}".strip()


def _example(unit: str) -> str:
    """An example answer in the drill's unit, of a size that gives nothing of the right value away."""
    label = unit_label(unit)
    return f"12 {label}".strip() if label else "12"
