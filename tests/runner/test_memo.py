"""The trusted side's memos of float64 runs and of drawn inputs: the same run on the same inputs, or the same draw
from the same generator state, is made once, and nothing a caller does to what it is handed reaches the next
caller."""

import threading
import time
from types import ModuleType, SimpleNamespace

import pytest
import torch

from runner.kit.memo import DrawnInputs, Float64Runs, inputs_digest


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


SPEC = ModuleType("judge_kit_memo_test_spec")


class Drawing:
    """A spec's inputs hook that counts its draws: a base tensor, a strided view of it, a transpose and a leaf
    that requires grad."""

    def __init__(self, extra=None):
        self.calls, self.extra = 0, extra

    def __call__(self, params, generator):
        self.calls += 1
        base = torch.randn(4, 6, generator=generator)
        drawn = {"base": base, "every_other": base[1:, ::2], "t": torch.randn(3, 5, generator=generator).T,
                 "w": torch.randn(2, generator=generator, dtype=torch.float64).requires_grad_()}
        return {**drawn, **(self.extra or {})}


def _generator(seed=7):
    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator


def test_the_same_draw_from_the_same_state_is_made_once_and_leaves_the_generator_where_a_draw_would():
    memo, draw = DrawnInputs(), Drawing()
    first_generator, again_generator = _generator(), _generator()
    first = memo.draw(draw, SPEC, {"n": 4}, first_generator)
    again = memo.draw(draw, SPEC, {"n": 4}, again_generator)
    assert draw.calls == 1
    assert all(torch.equal(first[name], again[name]) for name in first)
    fresh = _generator()
    Drawing()({"n": 4}, fresh)
    assert torch.equal(again_generator.get_state(), fresh.get_state())


def test_a_copy_keeps_every_stride_offset_alias_and_requires_grad():
    memo, draw = DrawnInputs(), Drawing()
    drawn = Drawing()({}, _generator())
    memo.draw(draw, SPEC, {}, _generator())
    copy = memo.draw(draw, SPEC, {}, _generator())
    for name, tensor in drawn.items():
        got = copy[name]
        assert (got.shape, got.stride(), got.storage_offset(), got.dtype, got.requires_grad) == \
            (tensor.shape, tensor.stride(), tensor.storage_offset(), tensor.dtype, tensor.requires_grad), name
        assert torch.equal(got.detach(), tensor.detach()), name
    assert copy["every_other"].untyped_storage().data_ptr() == copy["base"].untyped_storage().data_ptr()


def test_what_a_caller_changes_in_drawn_inputs_never_reaches_the_next():
    memo, draw = DrawnInputs(), Drawing()
    handed = memo.draw(draw, SPEC, {}, _generator())
    handed["base"].fill_(-1)
    with torch.no_grad():
        handed["w"].zero_()
    again = memo.draw(draw, SPEC, {}, _generator())
    assert torch.equal(again["base"], Drawing()({}, _generator())["base"]) and again["w"].abs().sum() > 0


@pytest.mark.parametrize("other", [{"params": {"n": 5}}, {"seed": 8}, {"spec": ModuleType("judge_kit_other_spec")}])
def test_other_parameters_another_state_or_another_spec_is_another_draw(other):
    memo, draw = DrawnInputs(), Drawing()
    memo.draw(draw, SPEC, {"n": 4}, _generator())
    memo.draw(draw, other.get("spec", SPEC), other.get("params", {"n": 4}), _generator(other.get("seed", 7)))
    assert draw.calls == 2


@pytest.mark.parametrize("extra", [{"count": 3}, {"made": torch.ones(2, requires_grad=True) * 2},
                                   {"weight": torch.nn.Parameter(torch.ones(2))}])
def test_inputs_a_copy_cannot_reproduce_exactly_are_drawn_every_time(extra):
    memo, draw = DrawnInputs(), Drawing(extra)
    memo.draw(draw, SPEC, {}, _generator())
    handed = memo.draw(draw, SPEC, {}, _generator())
    assert draw.calls == 2 and type(handed[next(iter(extra))]) is type(next(iter(extra.values())))
