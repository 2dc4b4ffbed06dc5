"""The stateful kind (runner/kit/stateful.py) on a package written here: problem.toml's [outputs] comparisons,
spec.judged and spec.call_of, the classic mistake it names, and what it refuses when the package loads."""

import textwrap

import pytest
import torch

from runner import compare, load_problem
from runner.kit import KitError, truth
from runner.verdict import split_why

PROBLEM = """\
title = "A running sum"
difficulty = "easy"
kind = "stateful"
entry_points = ["RunningSum"]

[outputs]
"count*" = { exact = true }
"mean*" = { atol = 1e-3 }
calls = { judged = false }

[[mistakes]]
solution = "solutions/wrong/first_value_twice.py"
says = "adding the first value twice gives: each value is added once"

[[tests]]
name = "three-adds"
params = { adds = 3 }
"""

REFERENCE = """\
import torch


class RunningSum:
    def __init__(self):
        self.total, self.count = None, 0

    def add(self, x):
        self.total = x.clone() if self.total is None else self.total + x
        self.count += 1
        return self.total
"""

FIRST_VALUE_TWICE = REFERENCE.replace("x.clone() if self.total is None", "2 * x if self.total is None")

DRIVER = """\
import torch


def run(solution, params, inputs, ctx):
    adder, out = solution.RunningSum(), {}
    for t in range(params["adds"]):
        out[f"total after add {t}"] = adder.add(inputs[f"x{t}"]).clone()
        out[f"count after add {t}"] = torch.tensor(adder.count)
    out["calls"] = torch.tensor(params["adds"])
    return out
"""

SPEC = """\
import torch


def inputs(params, generator):
    return {f"x{t}": torch.randn(3, generator=generator, dtype=torch.float64).float() for t in range(params["adds"])}


def judged(params, inputs, reports):
    means = {f"mean after add {t}": reports[f"total after add {t}"] / (t + 1) for t in range(params["adds"])
             if reports.get(f"total after add {t}") is not None}
    return {**reports, **means}


def call_of(name, params, inputs):
    return f"add #{name.rsplit(' ', 1)[1]}"


def check(params, inputs, got, truth):
    return None if int(got["calls"]) == params["adds"] else "the calls report is not the driver's"
"""


def write_package(root, spec=SPEC, problem=PROBLEM):
    folder = root / "running-sum"
    (folder / "solutions" / "wrong").mkdir(parents=True)
    files = {"problem.toml": problem, "reference.py": REFERENCE, "driver.py": DRIVER, "spec.py": spec,
             "solutions/wrong/first_value_twice.py": FIRST_VALUE_TWICE, "statement.md": "", "starter.py": "",
             "explanation.md": ""}
    for name, text in files.items():
        (folder / name).write_text(text)
    return load_problem("running-sum", root)


@pytest.fixture
def judged(tmp_path):
    """(checker, params, inputs, expected): the package's checker and the reference's outputs on one test."""
    problem = write_package(tmp_path)
    checker, params = problem.checker, problem.tests[0].params
    inputs = checker.inputs(params, torch.Generator().manual_seed(0))
    return checker, params, inputs, checker.run(_module(REFERENCE), params, inputs, truth.trusted_context())


def _module(source):
    namespace = {}
    exec(compile(source, "solution.py", "exec"), namespace)
    return type("Solution", (), namespace)


def test_each_output_is_judged_as_problem_toml_states(judged):
    checker, params, inputs, expected = judged
    assert checker.check(params, inputs, dict(expected), expected) is None
    count = {**expected, "count after add 1": torch.tensor(3)}
    assert checker.check(params, inputs, count, expected).startswith("add #1: count after add 1: 1 of 1 entries differ")
    with compare.values_hidden():
        assert "a hidden test" in checker.check(params, inputs, count, expected)
    total = {**expected, "total after add 2": expected["total after add 2"] + 1e-3}
    assert checker.check(params, inputs, total, expected).startswith("add #2: total after add 2: 3 of 3 values differ")


def test_a_stated_tolerance_is_the_one_an_output_is_judged_within(tmp_path):
    unjudged = 'calls = { judged = false }\n"total*" = { judged = false }'
    problem = write_package(tmp_path, problem=PROBLEM.replace("calls = { judged = false }", unjudged))
    checker, params = problem.checker, problem.tests[0].params
    inputs = checker.inputs(params, torch.Generator().manual_seed(0))
    expected = checker.run(_module(REFERENCE), params, inputs, truth.trusted_context())
    near = {**expected, "total after add 2": expected["total after add 2"] + 2e-3}  # its mean: 6.7e-4 off
    assert checker.check(params, inputs, near, expected) is None
    far = {**expected, "total after add 2": expected["total after add 2"] + 6e-3}  # its mean: 2e-3 off
    message = checker.check(params, inputs, far, expected)
    assert message.startswith("add #2: mean after add 2: 3 of 3 values differ")
    assert "tolerance 0.001 + 0·|expected|" in message


def test_an_outputs_entry_is_an_outputs_own_name_before_it_is_a_pattern(tmp_path):
    own = '"count[0]" = { judged = false }\n"count*" = { exact = true }'
    checker = write_package(tmp_path, problem=PROBLEM.replace('"count*" = { exact = true }', own)).checker
    assert not checker.comparison("count[0]").judged  # as a pattern, "count[0]" matches count0, not itself
    assert checker.comparison("count after add 1").exact and not checker.comparison("total after add 1").exact


def test_a_report_not_judged_by_value_reaches_spec_check_as_the_driver_sent_it(judged):
    checker, params, inputs, expected = judged
    assert checker.check(params, inputs, {**expected, "calls": torch.tensor(7)}, expected) == (
        "the calls report is not the driver's")


def test_a_mistake_is_named_when_its_outputs_are_the_submissions(judged):
    checker, params, inputs, expected = judged
    mistaken = checker.run(_module(FIRST_VALUE_TWICE), params, inputs, truth.trusted_context())
    message = checker.check(params, inputs, mistaken, expected)
    assert message.startswith("add #0: total after add 0")
    said, why = split_why(message)
    assert said.endswith("This is exactly what adding the first value twice gives.")
    assert why == "Each value is added once."


def test_a_mistake_is_held_to_the_outputs_it_gives_and_the_one_giving_the_later_ones_too_comes_first(tmp_path):
    """A mistake given at one output only (each call after right ones) is named though it gives no other; of two
    that reproduce the wrong output, the one that also gives what came after is named, and one of another
    shape is named by that shape and its values."""
    spec = SPEC + textwrap.dedent("""
        def mistakes(params, inputs):
            wrong = inputs["x0"] + 2 * inputs["x1"]
            later = wrong + inputs["x2"]
            yield "a step that lasts gives: one", {"total after add 1": wrong, "total after add 2": -later}
            yield "a step that carries on gives: two", {"total after add 1": wrong, "total after add 2": later}
            yield "a shorter sum gives: three", {"total after add 0": inputs["x0"][:2].double()}
        """)
    checker = write_package(tmp_path, spec=spec).checker
    params = {"adds": 3}
    inputs = checker.inputs(params, torch.Generator().manual_seed(0))
    expected = checker.run(_module(REFERENCE), params, inputs, truth.trusted_context())
    wrong = inputs["x0"] + 2 * inputs["x1"]
    got = {**expected, "total after add 1": wrong, "total after add 2": wrong + inputs["x2"]}
    said, why = split_why(checker.check(params, inputs, got, expected))
    assert said.endswith("exactly what a step that carries on gives.") and why == "Two."
    short = {**expected, "total after add 0": inputs["x0"][:2].clone()}
    said, why = split_why(checker.check(params, inputs, short, expected))
    assert said.endswith("This is exactly what a shorter sum gives.") and why == "Three."


@pytest.mark.parametrize("entry, refusal", [
    ('total = true', "is a table that sets judged, exact, or atol and rtol"),
    ('total = { exact = true, atol = 1e-3 }', "exact or within atol and rtol, not both"),
    ('total = { atol = -1.0 }', "numbers >= 0"),
    ('total = { judged = "no" }', "true or false"),
])
def test_an_outputs_entry_the_kit_cannot_follow_is_refused_when_the_package_loads(tmp_path, entry, refusal):
    problem = write_package(tmp_path, problem=PROBLEM.replace('calls = { judged = false }', entry))
    with pytest.raises(KitError, match=refusal):
        problem.checker


@pytest.mark.parametrize("spec, refusal", [
    (SPEC.replace("def inputs(", "def draw("), r"must define inputs\(params, generator\)"),
    (SPEC.replace("def judged(params, inputs, reports)", "def judged(reports)"),
     r"judged takes 1 positional parameters; the kit calls judged\(params, inputs, reports\)"),
    (SPEC.replace("def call_of(name, params, inputs)", "def call_of(name, params)"),
     r"the kit calls call_of\(name, params, inputs\)"),
])
def test_a_hook_missing_or_of_the_wrong_signature_is_refused_when_the_package_loads(tmp_path, spec, refusal):
    with pytest.raises(KitError, match=refusal):
        write_package(tmp_path, spec=spec).checker


def test_a_trusted_run_gets_copies_of_the_inputs_it_may_write_into():
    pool = torch.full((2, 3), float("nan"), dtype=torch.float64)

    def run(solution, params, inputs, ctx):
        inputs["pool"][0] = 1.0
        return {"pool": inputs["pool"].clone()}
    written = truth.run_in_float64(run, None, {}, {"pool": pool, "ids": torch.arange(3)})
    assert written["pool"][0].eq(1.0).all() and pool.isnan().all()
