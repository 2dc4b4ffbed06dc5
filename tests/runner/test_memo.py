"""The trusted side's memo of float64 runs: the same run on the same inputs is made once, and nothing a caller
does to what it is handed reaches the next caller."""

import threading
import time
from types import ModuleType, SimpleNamespace

import pytest
import torch

from runner.kit.memo import Float64Runs, inputs_digest


def driver(solution, params, inputs, ctx):
    return {"y": inputs["x"] * params.get("scale", 2)}


@pytest.fixture
def solution():
    return ModuleType("judge_kit_memo_test_reference")


class Counting:
    def __init__(self, outputs=None, delay_s=0.0, fails=False):
        self.calls, self.outputs, self.delay_s, self.fails = 0, outputs, delay_s, fails

    def __call__(self):
        self.calls += 1
        time.sleep(self.delay_s)
        if self.fails:
            raise ValueError("the truth failed")
        return self.outputs if self.outputs is not None else {"y": torch.arange(4.0, requires_grad=True) * 2}


def test_the_same_run_on_the_same_inputs_is_made_once(solution):
    runs, compute = Float64Runs(), Counting()
    inputs = {"x": torch.arange(4.0)}
    first = runs.run(driver, solution, {"scale": 2}, inputs, compute)
    again = runs.run(driver, solution, {"scale": 2}, {"x": torch.arange(4.0)}, compute)
    assert compute.calls == 1 and torch.equal(first["y"], again["y"])
    assert not first["y"].requires_grad and first["y"].grad_fn is None


@pytest.mark.parametrize("other", [
    {"x": torch.arange(4.0) + 1e-7},  # other bytes
    {"x": torch.arange(4.0, dtype=torch.float64)},  # other dtype
    {"x": torch.arange(4.0).reshape(2, 2)},  # other shape
    {"x": torch.arange(4.0).requires_grad_()},  # other requires_grad
    {"z": torch.arange(4.0)},  # other name
])
def test_any_difference_in_the_inputs_is_another_run(solution, other):
    runs, compute = Float64Runs(), Counting()
    runs.run(driver, solution, {}, {"x": torch.arange(4.0)}, compute)
    runs.run(driver, solution, {}, other, compute)
    assert compute.calls == 2


def test_other_parameters_or_another_solution_is_another_run(solution):
    runs, compute = Float64Runs(), Counting()
    runs.run(driver, solution, {"scale": 2}, {"x": torch.ones(2)}, compute)
    runs.run(driver, solution, {"scale": 3}, {"x": torch.ones(2)}, compute)
    runs.run(driver, ModuleType("judge_kit_memo_test_mistake_0"), {"scale": 2}, {"x": torch.ones(2)}, compute)
    assert compute.calls == 3


def test_what_a_caller_changes_never_reaches_the_next(solution):
    runs, compute = Float64Runs(), Counting()
    handed = runs.run(driver, solution, {}, {"x": torch.ones(2)}, compute)
    handed["y"].fill_(-1)
    assert torch.equal(runs.run(driver, solution, {}, {"x": torch.ones(2)}, compute)["y"], torch.arange(4.0) * 2)


def test_a_solution_that_is_not_a_module_is_never_kept():
    runs, compute = Float64Runs(), Counting()
    built = SimpleNamespace(AdamW=object)
    runs.run(driver, built, {}, {"x": torch.ones(2)}, compute)
    runs.run(driver, built, {}, {"x": torch.ones(2)}, compute)
    assert compute.calls == 2


def test_a_run_under_way_in_another_thread_is_waited_for_not_made_twice(solution):
    runs, compute = Float64Runs(), Counting(delay_s=0.3)
    results = []
    threads = [threading.Thread(target=lambda: results.append(runs.run(driver, solution, {}, {"x": torch.ones(2)},
                                                                         compute))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert compute.calls == 1 and len(results) == 3


def test_a_run_that_failed_elsewhere_is_made_again_and_fails_where_it_is_needed(solution):
    runs = Float64Runs()
    with pytest.raises(ValueError):
        runs.run(driver, solution, {}, {"x": torch.ones(2)}, Counting(fails=True))
    retried = Counting()
    runs.run(driver, solution, {}, {"x": torch.ones(2)}, retried)
    assert retried.calls == 1


def test_the_memo_keeps_no_more_bytes_than_its_bound(solution):
    runs = Float64Runs(max_bytes=3 * 400)
    for index in range(5):
        runs.run(driver, solution, {"index": index}, {"x": torch.ones(1)}, Counting({"y": torch.zeros(100)}))
    kept = Counting({"y": torch.zeros(100)})
    runs.run(driver, solution, {"index": 4}, {"x": torch.ones(1)}, kept)
    evicted = Counting({"y": torch.zeros(100)})
    runs.run(driver, solution, {"index": 0}, {"x": torch.ones(1)}, evicted)
    assert (kept.calls, evicted.calls) == (0, 1)


def test_the_digest_reads_every_dtype_including_bool_and_bfloat16():
    assert inputs_digest({"m": torch.tensor([True, False])}) != inputs_digest({"m": torch.tensor([False, True])})
    assert inputs_digest({"x": torch.ones(3, dtype=torch.bfloat16)}) != inputs_digest({"x": torch.zeros(3, dtype=torch.bfloat16)})
    assert inputs_digest({"x": torch.ones(4)[::2]}) == inputs_digest({"x": torch.ones(2)})
