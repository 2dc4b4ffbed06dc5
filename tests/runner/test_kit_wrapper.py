"""The kit's wrapper scenario (runner/kit/sandbox_wrapper.py) and its trusted judgement (runner/kit/wrapper.py),
run here without a sandbox: what the scenario reports, and that a report can only make a verdict worse."""

import threading
from pathlib import Path

import pytest
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from runner.kit import wrapper
from runner.kit.truth import load_module, trusted_context
from runner.verdict import split_why

SANDBOX_WRAPPER = Path(wrapper.__file__).with_name("sandbox_wrapper.py")
# As a driver loads it in a sandbox: one counting kernel per process, bound once.
KIT = load_module(SANDBOX_WRAPPER, "kit_wrapper_under_test")
RUN = KIT.counted_run()
BLOCK = {"model": "block", "d_model": 8, "n_heads": 2, "d_hidden": 16, "dropout": 0.1, "shapes": [[2, 3]]}
CHECKER = wrapper.WrapperChecker(wrapper.Lessons(wrapper="the checkpoint", once=lambda mode: f": once in {mode}",
                                                 gradients=lambda params: ": replay the masks",
                                                 rng=": restore the stream"))


class Plain(nn.Module):
    def __init__(self, block):
        super().__init__()
        self.block = block

    def forward(self, x):
        return self.block(x)


class RunsTwice(Plain):
    def forward(self, x):
        self.block(x)
        return self.block(x)


class Detached(Plain):
    def forward(self, x):
        with torch.no_grad():
            return self.block(x)


def scenario(wrap, params):
    inputs = CHECKER.inputs(params, torch.Generator().manual_seed(0))
    return inputs, RUN(wrap, params, inputs, trusted_context())


def judged(wrap, params):
    inputs, expected = scenario(Plain, params)
    return CHECKER.check(params, inputs, scenario(wrap, params)[1], expected)


@pytest.mark.parametrize("model", [
    {"model": "block"}, {"model": "stack", "blocks": 3}, {"model": "heads", "blocks": 2},
    {"model": "mlp", "d_in": 8, "d_out": 5}])
def test_a_wrapper_that_runs_the_block_plainly_matches_the_plain_model(model):
    params = {**BLOCK, **model, "shapes": [[2, 3], [1, 4]], "sgd_lr": 0.1}
    inputs, plain = scenario(None, params)
    _, wrapped = scenario(Plain, params)
    assert plain.keys() == wrapped.keys() and any(name.startswith("grad:") for name in plain)
    assert all(torch.equal(plain[name], wrapped[name]) for name in plain)
    assert CHECKER.check(params, inputs, wrapped, plain) is None


def test_the_frozen_parameter_of_the_mlp_gets_no_gradient_and_is_counted():
    _, observed = scenario(Plain, {**BLOCK, "model": "mlp", "d_in": 8, "d_out": 5})
    assert "grad:3.weight" not in observed and int(observed["frozen_grads"]) == 0


def test_the_runs_of_the_block_are_counted_per_call():
    params = {**BLOCK, "mode": "eval", "count_calls": True, "shapes": [[2, 3], [1, 2]]}
    assert [int(scenario(RunsTwice, params)[1][f"runs{call}"]) for call in range(2)] == [2, 2]
    assert judged(RunsTwice, params) == ("in eval mode with grad enabled the block ran 2 times for one forward and "
                                         "backward; it must run once, as the plain block does: once in eval")


def test_a_missing_or_malformed_report_fails_the_test():
    params = {**BLOCK, "mode": "no_grad", "count_calls": True, "backward": False}
    inputs, expected = scenario(Plain, params)
    for forged in ({}, {"runs0": torch.tensor(1.0)}, {"runs0": torch.tensor([1])}, {"runs0": torch.tensor(-1)}):
        got = {name: tensor for name, tensor in expected.items() if name != "runs0"} | forged
        assert CHECKER.check(params, inputs, got, expected) == wrapper.TAMPERED
    assert CHECKER.check(params, inputs, {**expected, "requires_grad0": torch.tensor(0)}, expected) == wrapper.TAMPERED


def test_the_reports_the_test_needs_are_decided_by_its_params_not_by_the_sandbox():
    params = {**BLOCK, "count_calls": True}
    inputs, expected = scenario(Plain, params)
    _, uncounted = scenario(Plain, {**params, "count_calls": False})
    assert CHECKER.check(params, inputs, uncounted, expected) == wrapper.TAMPERED
    assert CHECKER.check(params, inputs, {**expected, "frozen_grads": torch.tensor(1)}, expected).startswith(
        "a frozen parameter")


def test_eval_is_not_no_grad():
    assert "eval() is not no_grad()" in judged(Detached, {**BLOCK, "mode": "eval"})
    assert judged(Plain, {**BLOCK, "mode": "no_grad", "backward": False}) is None


def test_a_lost_parameter_gradient_names_the_wrapper():
    class Copies(Plain):
        def __init__(self, block):
            super().__init__(block)
            self.block = type(block)(8, 2, 16, 0.1)
    assert "through the checkpoint, or the parameters that ran were a copy's" in judged(Copies, BLOCK)


def test_gradients_that_differ_from_outputs_that_match_carry_the_problems_lesson():
    class FreshMasks(Plain):
        def forward(self, x):
            value = self.block(x).detach()
            graphed = self.block(x)
            return value + graphed - graphed.detach()
    said, why = split_why(judged(FreshMasks, BLOCK))
    assert said.endswith("backward did not differentiate the forward that was run") and why == "Replay the masks"


def test_the_random_stream_must_end_where_the_plain_model_leaves_it():
    class Rewinds(Plain):
        def forward(self, x):
            out = self.block(x)
            torch.rand(3)
            return out
    said, why = split_why(judged(Rewinds, {**BLOCK, "dropout": 0.0}))
    assert said.endswith("the global RNG state is not where the plain model leaves it") and why == "Restore the stream"


def test_the_driver_keeps_the_scenario_it_bound_at_load(monkeypatch):
    monkeypatch.setattr(KIT, "scenario", lambda *args: {"out0": torch.zeros(())})
    monkeypatch.setattr(KIT, "counted_run", lambda: KIT.scenario)
    _, observed = scenario(Plain, {**BLOCK, "count_calls": True})
    assert int(observed["runs0"]) == 1 and "grad:attn.qkv.weight" in observed


def test_the_memory_bound_is_a_fraction_of_the_plain_models_peak_measured_here():
    params = {**BLOCK, "plain_fraction": 0.5}
    inputs = CHECKER.inputs(params, torch.Generator().manual_seed(0))
    bound, words = CHECKER.memory_limit(params, inputs)
    assert bound > 0 and "at most 50% of the" in words and "when run plainly" in words
    assert CHECKER.memory_limit(BLOCK, inputs) is None


def test_a_hook_called_by_hand_does_not_hide_a_second_run():
    class CallsTheHookOnce(Plain):
        def __init__(self, block):
            super().__init__(block)
            self.hooks = list(block._forward_pre_hooks.values())
            block._forward_pre_hooks.clear()

        def forward(self, x):
            for hook in self.hooks:
                hook(self.block, (x,))
            return checkpoint(self.block, x, use_reentrant=False)

    params = {**BLOCK, "mode": "eval", "count_calls": True}
    inputs, expected = scenario(Plain, params)
    _, got = scenario(CallsTheHookOnce, params)
    assert int(expected["norms0"]) == 2 and int(got["runs0"]) == 1 and int(got["norms0"]) == 4
    assert CHECKER.check(params, inputs, got, expected).startswith(
        "in eval mode with grad enabled the block ran 2 times")
    assert CHECKER.check(params, inputs, scenario(Plain, params)[1], expected) is None


def test_a_run_on_another_thread_is_counted_in_the_dispatcher():
    class SecondRunOnAThread(Plain):
        def forward(self, x):
            # forward() itself, past the block's hooks, on a thread no dispatch mode of the caller's reaches.
            helper = threading.Thread(target=self.block.forward, args=(x.detach(),))
            helper.start()
            helper.join()
            return self.block(x)

    params = {**BLOCK, "mode": "eval", "count_calls": True}
    inputs, expected = scenario(Plain, params)
    _, got = scenario(SecondRunOnAThread, params)
    assert int(got["runs0"]) == 1 and int(got["norms0"]) == 2 * int(expected["norms0"])
    assert CHECKER.check(params, inputs, got, expected).startswith(
        "in eval mode with grad enabled the block ran 2 times")


class Checkpointed(Plain):
    def forward(self, x):
        if self.training and torch.is_grad_enabled():
            return checkpoint(self.block, x, use_reentrant=False)
        return self.block(x)


def test_a_checkpointed_training_step_runs_each_block_twice_and_a_plain_one_is_told_so():
    params = {**BLOCK, "model": "stack", "blocks": 3, "count_calls": True}
    inputs, expected = scenario(Checkpointed, params)
    assert int(expected["runs0"]) == 6 and int(expected["norms0"]) == 12
    assert CHECKER.check(params, inputs, scenario(Checkpointed, params)[1], expected) is None
    assert CHECKER.check(params, inputs, scenario(Plain, params)[1], expected).startswith(
        "in training mode each block ran 1 time for one forward and backward; checkpointed, it runs twice")
