"""The drill evaluator: arithmetic on named values, and a refusal for everything else."""

import pytest

from interview.estimation.expressions import ExpressionError, evaluate, names, parse, with_values


def value(formula: str, **values: float) -> float:
    return evaluate(parse(formula), values)


def test_it_evaluates_arithmetic_on_parameters_and_the_named_functions():
    assert value("2 * (a + b) ** 2 / 4 - -1", a=1, b=2) == 5.5
    assert value("ceil(x / 16) + floor(2.5) + max(1, y, 3) + min(4, y)", x=33, y=2) == 3 + 2 + 3 + 2
    assert value("log2(1024) + log10(1000) + sqrt(16) + round(2.345, 2)") == pytest.approx(10 + 3 + 4 + 2.35)


def test_it_lists_the_names_a_formula_reads_but_not_the_functions_it_calls():
    assert names(parse("ceil(tokens / block) * block + max(a, 2)")) == {"tokens", "block", "a"}


@pytest.mark.parametrize("formula", [
    "x.real",                      # attribute access
    "().__class__",                # a dunder reached through an attribute
    "__import__('os')",            # a call of something that is not a named function
    "x[0]",                        # subscript
    "(lambda: 1)()",               # lambda
    "[a for a in b]",              # list comprehension
    "sum(a for a in b)",           # generator expression
    "{a: 1 for a in b}",           # dict comprehension
    "__builtins__",                # a dunder name
    "_private + 1",                # a name that starts with an underscore
    "'text'",                      # a string
    "a if b else c",               # a conditional
    "a < b",                       # a comparison
    "a and b",                     # a boolean operation
    "a // b", "a % b", "a << b",   # operators outside + - * / **
    "not a", "~a", "+a",           # unary operators but minus
    "max(*xs)", "round(x, ndigits=2)",  # star arguments, keywords
    "ceil",                        # a function named but not called
    "(x := 1)",                    # an assignment expression
    "True + 1",                    # a boolean is not a number
    "import os",                   # a statement
])
def test_it_refuses_anything_but_arithmetic_on_names(formula):
    with pytest.raises(ExpressionError):
        parse(formula)


@pytest.mark.parametrize("formula", ["10 ** 10 ** 10", "2 ** 65", "9 ** 99999999999", "x ** 1000"])
def test_it_refuses_huge_exponents(formula):
    with pytest.raises(ExpressionError, match="too large"):
        value(formula, x=10)


@pytest.mark.parametrize("formula, values", [
    ("1 / (a - a)", {"a": 2}),         # division by zero
    ("sqrt(-a)", {"a": 1}),            # outside the function's domain
    ("(-a) ** 0.5", {"a": 8}),         # a complex result
    ("1e308 * 10", {}),                # not finite
    ("missing + 1", {}),               # an unknown name
])
def test_arithmetic_that_cannot_be_done_is_an_expression_error(formula, values):
    with pytest.raises(ExpressionError):
        value(formula, **values)


def test_a_formula_is_written_out_with_its_values_in_place_keeping_its_precedence():
    tree = parse("(a + b) * 2 / ceil(c)")
    assert with_values(tree, {"a": "1", "b": "7.5e9", "c": "3"}, number=str) == "(1 + 7.5e9) * 2 / ceil(3)"
