"""A drill's formulas: arithmetic over named values, parsed with `ast` and walked by a whitelist, never `eval`.

A formula may use numbers, the names of the drill's parameters and earlier steps, `+ - * / **`, unary minus,
parentheses, and calls of the functions in FUNCTIONS. Every other construct (attributes, subscripts, lambdas,
comprehensions, strings, keywords, comparisons, names that start with an underscore) is refused when the
formula is parsed, which happens when the drill file is loaded, so a bad formula stops the sync.
"""

import ast
import math
from collections.abc import Callable, Mapping

MAX_FORMULA_LENGTH = 400
# Large enough for 2 ** 40 or 10 ** 24; small enough that no formula can ask for a number without end.
MAX_EXPONENT = 64
FUNCTIONS: dict[str, Callable[..., float]] = {
    "ceil": math.ceil,
    "floor": math.floor,
    "min": min,
    "max": max,
    "log2": math.log2,
    "log10": math.log10,
    "sqrt": math.sqrt,
    "round": round,
}
_OPERATORS: dict[type, Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
}


class ExpressionError(ValueError):
    """A formula that is not plain arithmetic on known names, or that cannot be evaluated."""


def parse(formula: str) -> ast.expr:
    """The formula's tree, once every node in it is one the evaluator allows; ExpressionError otherwise."""
    if not isinstance(formula, str) or not formula.strip():
        raise ExpressionError("a formula must be a non-empty string")
    if len(formula) > MAX_FORMULA_LENGTH:
        raise ExpressionError(f"a formula is at most {MAX_FORMULA_LENGTH} characters")
    try:
        tree = ast.parse(formula.strip(), mode="eval")
    except SyntaxError as error:
        raise ExpressionError(f"not an arithmetic expression: {error.msg}") from None
    _check(tree.body)
    return tree.body


def _check(node: ast.AST) -> None:
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float):
            raise ExpressionError(f"only numbers are allowed, not {node.value!r}")
    elif isinstance(node, ast.Name):
        _check_name(node.id)
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _OPERATORS:
            raise ExpressionError(f"the operator {type(node.op).__name__} is not allowed (only + - * / **)")
        _check(node.left)
        _check(node.right)
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, ast.USub):
            raise ExpressionError(f"the operator {type(node.op).__name__} is not allowed (only unary minus)")
        _check(node.operand)
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise ExpressionError(f"only the functions {', '.join(FUNCTIONS)} may be called")
        if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args) or not node.args:
            raise ExpressionError(f"{node.func.id}() takes plain positional arguments")
        for argument in node.args:
            _check(argument)
    else:
        raise ExpressionError(f"{type(node).__name__} is not allowed in a formula: only arithmetic on names")


def _check_name(name: str) -> None:
    if name.startswith("_"):
        raise ExpressionError(f"the name {name!r} is not allowed: names may not start with an underscore")
    if name in FUNCTIONS:
        raise ExpressionError(f"{name} is a function; call it as {name}(...)")


def names(tree: ast.expr) -> set[str]:
    """The value names a parsed formula reads (function names excluded)."""
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and id(node) not in called}


def evaluate(tree: ast.expr, values: Mapping[str, float]) -> float:
    """The formula's value given values for its names; ExpressionError for an unknown name or bad arithmetic."""
    try:
        result = _value(tree, values)
    except (OverflowError, ZeroDivisionError, ValueError, TypeError) as error:
        if isinstance(error, ExpressionError):
            raise
        raise ExpressionError(f"cannot be evaluated: {error}") from None
    if not math.isfinite(result):
        raise ExpressionError("the result is not a finite number")
    return result


def _value(node: ast.expr, values: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant):
        return float(node.value)
    if isinstance(node, ast.Name):
        if node.id not in values:
            raise ExpressionError(f"unknown name {node.id!r}")
        return float(values[node.id])
    if isinstance(node, ast.UnaryOp):
        return -_value(node.operand, values)
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left, values), _value(node.right, values)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise ExpressionError(f"an exponent of {right:g} is too large (at most {MAX_EXPONENT})")
        return float(_OPERATORS[type(node.op)](left, right))
    if isinstance(node, ast.Call):
        arguments = [_value(argument, values) for argument in node.args]
        if node.func.id == "round" and len(arguments) == 2:
            arguments[1] = int(arguments[1])
        return float(FUNCTIONS[node.func.id](*arguments))
    raise ExpressionError(f"{type(node).__name__} is not allowed in a formula")


def with_values(tree: ast.expr, shown: Mapping[str, str], number: Callable[[float], str]) -> str:
    """The formula written out with each name replaced by its value as shown, and each number as `number` writes
    it (for the worked solution)."""

    class Substitute(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.Call:
            node.args = [self.visit(argument) for argument in node.args]
            return node

        def visit_Name(self, node: ast.Name) -> ast.Name:
            # A Name prints verbatim and binds tightest, so the value keeps the formula's precedence.
            return ast.Name(id=shown.get(node.id, node.id))

        def visit_Constant(self, node: ast.Constant) -> ast.Name:
            return ast.Name(id=number(node.value))

    copy = ast.parse(ast.unparse(tree), mode="eval").body
    return ast.unparse(Substitute().visit(copy))
