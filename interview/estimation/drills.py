"""A drill as data, and one attempt's numbers: parameters drawn from a seed, the steps worked, the answer.

Every parameter takes one of a finite list of values: plain numbers, or options (a label with figures that
come with it, such as a GPU and its datasheet peaks, read in formulas as `<name>_<figure>`). The same steps
produce the graded value and the worked solution the page shows, so the two cannot disagree.
"""

import ast
import itertools
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from interview.estimation import expressions, units

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
TOLERANCE_RANGE = (0.01, 0.5)
# Every combination of parameter values is evaluated when a drill loads, up to this many; beyond, a sample.
EXHAUSTIVE_LIMIT = 500


@dataclass(frozen=True)
class Step:
    name: str
    formula: str
    says: str
    unit: str = ""


@dataclass(frozen=True)
class DrillSpec:
    """What a drill computes: the prompt template, the parameters' values, the steps, the unit, the tolerance."""

    prompt: str
    parameters: dict[str, list]  # name -> numbers, or option mappings each with a "label"
    steps: tuple[Step, ...]
    answer_unit: str
    tolerance: float

    def as_json(self) -> dict[str, Any]:
        return {"prompt": self.prompt, "parameters": self.parameters, "answer_unit": self.answer_unit,
                "tolerance": self.tolerance,
                "steps": [{"name": s.name, "formula": s.formula, "says": s.says, "unit": s.unit} for s in self.steps]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "DrillSpec":
        return cls(prompt=data["prompt"], parameters=data["parameters"], answer_unit=data["answer_unit"],
                   tolerance=data["tolerance"], steps=tuple(Step(**step) for step in data["steps"]))


@dataclass(frozen=True)
class WorkedStep:
    name: str
    says: str
    formula: str
    substituted: str
    value: float
    unit: str

    @property
    def shown(self) -> str:
        return units.format_quantity(self.value, self.unit, significant=4)


@dataclass(frozen=True)
class Worked:
    """One attempt's numbers: the prompt as asked, each step with its value, and the answer in the drill's unit."""

    parameters: dict[str, Any]
    prompt: str
    steps: tuple[WorkedStep, ...]
    answer: float
    answer_unit: str

    @property
    def answer_shown(self) -> str:
        return units.format_quantity(self.answer, self.answer_unit, significant=4)


def draw_parameters(spec: DrillSpec, seed: int) -> dict[str, Any]:
    """The parameters of the attempt with this seed: each drawn from its list, in the file's order."""
    rng = random.Random(seed)
    return flatten_choices({name: rng.choice(values) for name, values in spec.parameters.items()})


def flatten_choices(chosen: dict[str, Any]) -> dict[str, Any]:
    """Numbers stay; an option becomes its label under its name, and each figure under name_figure."""
    flat = {}
    for name, value in chosen.items():
        if isinstance(value, dict):
            flat[name] = value["label"]
            flat.update({f"{name}_{figure}": number for figure, number in value.items() if figure != "label"})
        else:
            flat[name] = value
    return flat


def work(spec: DrillSpec, parameters: dict[str, Any]) -> Worked:
    """Evaluate the steps for these parameters; ExpressionError if a step cannot be evaluated."""
    values = {name: value for name, value in parameters.items() if not isinstance(value, str)}
    shown = {name: units.format_number(value, significant=6) for name, value in values.items()}
    worked = []
    for step in spec.steps:
        tree = _tree(step.formula)
        value = expressions.evaluate(tree, values)
        substituted = expressions.with_values(tree, shown, _shown_constant)
        worked.append(WorkedStep(step.name, step.says, step.formula, substituted, value, step.unit))
        values[step.name] = value
        shown[step.name] = units.format_number(value, significant=4)
    last = worked[-1]
    answer = units.convert(last.value, last.unit, spec.answer_unit)
    return Worked(parameters, render_prompt(spec.prompt, parameters), tuple(worked), answer, spec.answer_unit)


def _shown_constant(value: float) -> str:
    return units.format_number(value, significant=6)


@lru_cache(maxsize=1024)
def _tree(formula: str) -> ast.expr:
    """A formula's parsed tree; formulas are few and evaluated often (every combination, when a drill loads)."""
    return expressions.parse(formula)


def _answer(spec: DrillSpec, parameters: dict[str, Any], to_answer_unit: float) -> float:
    """The answer alone, as work() computes it, without writing out the steps (units scale, so a factor does)."""
    values = {name: value for name, value in parameters.items() if not isinstance(value, str)}
    for step in spec.steps:
        values[step.name] = expressions.evaluate(_tree(step.formula), values)
    return values[spec.steps[-1].name] * to_answer_unit


def render_prompt(template: str, parameters: dict[str, Any]) -> str:
    def value(match: re.Match) -> str:
        shown = parameters[match[1]]
        return shown if isinstance(shown, str) else units.format_number(shown, significant=6)

    return _PLACEHOLDER.sub(value, template)


def spec_problems(spec: DrillSpec) -> list[tuple[str, str]]:
    """(field, message) for each fault of the spec; empty when every combination of parameters works out."""
    problems = _parameter_problems(spec.parameters)
    if problems:
        return problems
    names = set(flatten_choices({name: values[0] for name, values in spec.parameters.items()}))
    numeric = {name for name, value in draw_parameters(spec, 0).items() if not isinstance(value, str)}
    problems += [("prompt", f"{{{field}}} names no parameter") for field in _PLACEHOLDER.findall(spec.prompt)
                 if field not in names]
    problems += _step_problems(spec, numeric)
    try:
        units.parse_unit(spec.answer_unit)
    except ValueError as error:
        problems.append(("answer_unit", str(error)))
    low, high = TOLERANCE_RANGE
    if not isinstance(spec.tolerance, int | float) or not low <= spec.tolerance <= high:
        problems.append(("tolerance", f"must be a relative tolerance from {low} to {high}"))
    if problems:
        return problems
    if not units.same_dimension(spec.steps[-1].unit, spec.answer_unit):
        return [("steps", f"the last step's unit {spec.steps[-1].unit!r} does not convert to the answer's unit "
                          f"{spec.answer_unit!r}")]
    return _evaluation_problems(spec)


def _parameter_problems(parameters: Any) -> list[tuple[str, str]]:
    if not isinstance(parameters, dict) or not parameters:
        return [("parameters", "needs at least one parameter")]
    problems = []
    for name, values in parameters.items():
        field = f"parameters.{name}"
        if not NAME_PATTERN.match(name) or name in expressions.FUNCTIONS:
            problems.append((field, "a name is lower-case letters, digits and underscores, and not a function"))
        if not isinstance(values, list) or not values:
            problems.append((field, "needs a non-empty list of values"))
        elif all(isinstance(v, dict) for v in values):
            for option in values:
                figures = {key: number for key, number in option.items() if key != "label"}
                if not isinstance(option.get("label"), str) or not all(
                        _is_number(number) and NAME_PATTERN.match(key) for key, number in figures.items()):
                    problems.append((field, "each option needs a text `label` and numeric figures"))
                    break
        elif not all(_is_number(value) and value > 0 for value in values):
            problems.append((field, "values are positive numbers, or all options with a label"))
    return problems


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _step_problems(spec: DrillSpec, known: set[str]) -> list[tuple[str, str]]:
    if not spec.steps:
        return [("steps", "needs at least one step")]
    problems = []
    known = set(known)
    for index, step in enumerate(spec.steps, start=1):
        field = f"steps[{index}] ({step.name})"
        if not NAME_PATTERN.match(step.name) or step.name in known or step.name in expressions.FUNCTIONS:
            problems.append((field, "a step's name is new, lower-case letters, digits and underscores"))
        if not step.says.strip():
            problems.append((field, "`says` explains the step in words"))
        try:
            units.parse_unit(step.unit)
        except ValueError as error:
            problems.append((field, str(error)))
        try:
            tree = expressions.parse(step.formula)
        except expressions.ExpressionError as error:
            problems.append((field, f"formula: {error}"))
        else:
            unknown = expressions.names(tree) - known
            if unknown:
                problems.append((field, f"formula reads {', '.join(sorted(unknown))}: no parameter or earlier step"))
        known.add(step.name)
    return problems


def _combinations(spec: DrillSpec):
    lists = list(spec.parameters.values())
    total = 1
    for values in lists:
        total *= len(values)
    if total <= EXHAUSTIVE_LIMIT:
        yield from (flatten_choices(dict(zip(spec.parameters, combination, strict=True)))
                    for combination in itertools.product(*lists))
    else:
        yield from (draw_parameters(spec, seed) for seed in range(EXHAUSTIVE_LIMIT))


def _evaluation_problems(spec: DrillSpec) -> list[tuple[str, str]]:
    to_answer_unit = units.convert(1.0, spec.steps[-1].unit, spec.answer_unit)
    for parameters in _combinations(spec):
        try:
            answer = _answer(spec, parameters, to_answer_unit)
        except expressions.ExpressionError as error:
            return [("steps", f"with {parameters}: {error}")]
        if not answer > 0:
            return [("steps", f"with {parameters}: the answer {answer} is not positive")]
    return []
