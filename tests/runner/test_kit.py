"""The problem kit: its comparisons on the trusted side, and its standard drivers and checker judging real
submissions in the sandbox (fixtures kit-function and kit-module)."""

import subprocess
import sys
from types import SimpleNamespace

import pytest
import torch

from runner import compare, kit, load_problem
from runner.kit import reports, sandbox, truth

from .conftest import FIXTURE_PROBLEMS, ROOT, judge_for_tests, requires_bubblewrap

FUNCTION = load_problem("kit-function", FIXTURE_PROBLEMS)
MODULE = load_problem("kit-module", FIXTURE_PROBLEMS)


def test_the_tolerance_is_the_larger_of_the_references_error_and_a_few_rounding_units():
    truth = torch.tensor([1.0, -3.0], dtype=torch.float64)
    assert kit.tolerance(torch.float32, truth + 1e-3, truth) == pytest.approx(8e-3)
    assert kit.tolerance(torch.float32, truth, truth) == pytest.approx(32 * torch.finfo(torch.float32).eps * 3)


def test_a_specs_magnitude_raises_the_rounding_floor_with_what_it_says_the_rounding_scales_with():
    # RoPE's angle at position m is off by a few units of m, so the floor grows with the last position.
    rope = load_problem("rope", ROOT / "problems")
    params = {"batch": 1, "heads": 1, "kv_heads": 1, "seq": 1, "head_dim": 8, "dtype": "float64", "grad": False}
    inputs = rope.checker.inputs(params, torch.Generator().manual_seed(0))
    largest = max(inputs["q"].abs().max().item(), inputs["k"].abs().max().item())
    truth = rope.checker.truth({**params, "offset": 32767}, inputs)["q_rot"]
    allowed = rope.checker.allowed(truth, truth, truth, inputs, "q_rot", {**params, "offset": 32767})
    assert allowed == pytest.approx(8 * torch.finfo(torch.float64).eps * 32768 * largest)
    assert rope.checker.allowed(truth, truth, truth, inputs, "q_rot") < allowed / 1000  # without the params: none


def test_exact_outputs_are_equal_or_off_by_at_most_what_is_allowed():
    codes = torch.tensor([3, -127, 0])
    assert kit.check_exact("codes", codes.clone(), codes) is None
    assert "1 of 3 entries differ, the first at (1)" in kit.check_exact("codes", torch.tensor([3, -126, 0]), codes)
    assert kit.check_exact("codes", torch.tensor([3, -126, 0]), codes, off_by=1) is None
    with compare.values_hidden():
        assert "values are not shown" in kit.check_exact("codes", torch.tensor([4, -127, 0]), codes)


def test_the_chi_square_check_rejects_a_correct_sampler_at_about_its_stated_rate():
    probabilities = torch.tensor([0.5, 0.2, 0.2, 0.05, 0.03, 0.02], dtype=torch.float64)
    generator = torch.Generator().manual_seed(0)
    draws = torch.multinomial(probabilities.expand(4000, -1), 2000, replacement=True, generator=generator)
    counts = torch.nn.functional.one_hot(draws, 6).sum(1)
    rejected = sum(kit.chi_square(row, probabilities, false_rejection=0.01) is not None for row in counts)
    assert 10 <= rejected <= 80  # 40 expected at a rate of 1 %
    assert all(kit.chi_square(row, probabilities) is None for row in counts)


def test_the_chi_square_check_rejects_a_biased_sampler_and_any_impossible_draw():
    probabilities = torch.tensor([0.5, 0.3, 0.2, 0.0], dtype=torch.float64)
    assert "do not follow the distribution" in kit.chi_square(torch.tensor([4000, 3000, 3000, 0]), probabilities)
    assert "drew category 3 1 times, whose probability is 0" in kit.chi_square(torch.tensor([5000, 3000, 1999, 1]),
                                                                              probabilities)


def test_a_standard_problem_has_no_checker_or_driver_of_its_own_and_gets_the_kits():
    assert FUNCTION.kit_kind.kit_driver is not None and not (FUNCTION.path / "checker.py").exists()
    blobs = FUNCTION.sandbox_blobs(b"")
    assert "def run(solution, params, inputs, ctx, _run=kit.run_standard)" in blobs["driver"].decode()
    assert b"def run_standard" in blobs["module:kit"]




@pytest.mark.sandbox
@pytest.mark.slow
@requires_bubblewrap
@pytest.mark.parametrize("problem", [FUNCTION, MODULE], ids=lambda p: p.slug)
def test_each_fixture_solution_gets_its_declared_verdict_and_message(problem):
    for path, expected, message in problem.solutions():
        verdict = judge_for_tests(problem, path.read_bytes(), tests="all", stop_at_first_failure=True)
        assert verdict.verdict == expected, (path.name, verdict.tests)
        if message:
            assert any(message in test.message for test in verdict.tests), (path.name, verdict.tests)


def test_an_infinite_truth_must_be_met_exactly_and_leaves_the_finite_tolerance_alone():
    truth = torch.tensor([1.0, float("inf"), -float("inf")], dtype=torch.float64)
    assert kit.check_close("scale", truth.float(), truth.float(), truth) is None
    assert "1 of 3 values differ" in kit.check_close("scale", torch.tensor([1.0, 3.0, -float("inf")]),
                                                     truth.float(), truth)
    assert kit.tolerance(torch.int64, truth, truth) == 0.0


def test_a_test_with_calls_draws_each_calls_inputs_and_shares_the_module_built_once():
    checker = MODULE.checker
    params = next(test.params for test in MODULE.tests if "calls" in test.params)
    inputs = checker.inputs(params, torch.Generator().manual_seed(0))
    assert sorted(inputs) == ["0/dy", "0/x", "1/dy", "1/x", "module.A", "module.B", "module.base.weight"]
    calls = list(checker.each_call(params, inputs))
    assert [tuple(call_inputs["x"].shape) for _, call_inputs in calls] == [(5, 4), (2, 3, 4)]
    assert all(call_inputs["module.A"] is inputs["module.A"] for _, call_inputs in calls)
    assert [call_params["shape"] for call_params, _ in calls] == [[5], [2, 3]]


def test_the_function_kind_calls_as_the_params_say_and_reports_what_was_raised():
    seen = []

    def record(t_q, t_k=None, *, window=None, device=None):
        seen.append((t_q, t_k, window, device, torch.get_default_device().type))
        if window == 0:
            raise ArithmeticError("no window")
        return torch.zeros(t_q, dtype=torch.bool, device=device)
    solution = SimpleNamespace(f=record)
    interface = {"call": "f", "args": ["t_q", "t_k"], "kwargs": ["window", "device"], "outputs": ["mask"]}
    params = {"calls": [{"t_q": 2, "explicit_none": True}, {"t_q": 3, "t_k": 4, "by_name": True},
                        {"t_q": 1, "device": "meta", "as_device": ["device"], "default_device": "meta"},
                        {"t_q": 1, "window": 0, "raises": "ValueError"}]}
    got = sandbox.run_function(solution, params, {}, truth.trusted_context(), interface)
    assert seen == [(2, None, None, None, "cpu"), (3, 4, None, None, "cpu"),
                    (1, None, None, torch.device("meta"), "meta"), (1, None, 0, None, "cpu")]
    assert reports.text(got["2/mask.device"], "[a-z]*") == "meta" and got["2/mask"].device.type == "cpu"
    assert reports.text(got["3/raised"], "[A-Za-z.]*") == "builtins.ArithmeticError"
    assert not reports.flag(got["3/raised.matches"])


class _ClaimsValueError(ArithmeticError):
    __class__ = ValueError  # isinstance honours it; `except ValueError` does not


class _TooLarge(ValueError):
    pass


@pytest.mark.parametrize("error, matches", [(_ClaimsValueError, False), (_TooLarge, True), (ValueError, True)])
def test_what_a_call_raised_is_judged_by_the_class_it_has_not_the_class_it_claims(error, matches):
    def refuse(t_q):
        raise error("t_q")
    got = sandbox.run_function(SimpleNamespace(f=refuse), {"t_q": 1, "raises": "ValueError"}, {},
                               truth.trusted_context(), {"call": "f", "args": ["t_q"], "outputs": ["mask"]})
    assert reports.flag(got["raised.matches"]) == matches


def test_a_later_result_in_the_storage_of_an_earlier_one_is_reported_whatever_values_it_holds():
    masks = {}

    def restored(t_q):  # a memo that copies its pristine mask back into the tensor it handed out before
        if t_q not in masks:
            masks[t_q] = (torch.ones(t_q, dtype=torch.bool), torch.ones(t_q, dtype=torch.bool))
        mask, pristine = masks[t_q]
        return mask.copy_(pristine)
    interface = {"call": "f", "args": ["t_q"], "outputs": ["mask"]}
    for function, shares in [(restored, True), (lambda t_q: torch.ones(t_q, dtype=torch.bool), False)]:
        got = sandbox.run_function(SimpleNamespace(f=function), {"t_q": 3, "fresh": True}, {},
                                   truth.trusted_context(), interface)
        assert torch.equal(got["mask.again"], torch.ones(3, dtype=torch.bool))
        assert reports.flag(got["mask.again.aliases"]) == shares


def test_storages_alias_where_their_memory_overlaps_and_meta_tensors_never_do():
    buffer = bytearray(64)
    first, second = torch.frombuffer(buffer, dtype=torch.uint8), torch.frombuffer(buffer, dtype=torch.uint8, offset=8)
    assert sandbox.aliases(second, first) and sandbox.aliases(first[4:], first)
    assert not sandbox.aliases(torch.ones(3), torch.ones(3))
    assert not sandbox.aliases(torch.ones(3, device="meta"), torch.ones(3, device="meta"))


# Run as the sandbox loads the kit (the module `kit`), with a callable handed over that records its calls, and a
# submission that empties every list and resets every count it reaches from that callable.
CALLS_OBSERVED = '''
import importlib.util, sys
spec = importlib.util.spec_from_file_location("kit", sys.argv[1])
kit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kit)
called, taken = kit.calls_observed()


def step(rows):
    called(rows)


def forget(function, seen):
    if id(function) in seen or not callable(function):
        return
    seen.add(id(function))
    for value in [cell.cell_contents for cell in getattr(function, "__closure__", None) or ()]:
        if isinstance(value, list):
            value.clear()
        forget(value, seen)


step(3), step(2), forget(step, set())
sys.audit("kit.calls.0.read", ["a list of its own"])  # reads a copy into its own list, and empties nothing
print(taken())
'''


def test_the_calls_of_a_handed_over_callable_are_recorded_beyond_anything_the_callable_reaches():
    result = subprocess.run([sys.executable, "-c", CALLS_OBSERVED, sandbox.__file__], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[3, 2]"
    called, taken = sandbox.calls_observed()  # the trusted side: a plain record, no hook in the judge's process
    called(4)
    assert taken() == [4]
