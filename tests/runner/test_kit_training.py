"""The debugging kind (runner/kit/training.py) and its sandbox half (runner/kit/sandbox_training.py), on the
catalogue's debug-mlp-classifier: what stays on the trusted side, what the driver reports, and the words of each
verdict on reports crafted from a real training run."""

from __future__ import annotations

import torch

from runner import stated_numbers
from runner.verdict import split_why
from runner.kit import sandbox_training
from runner.kit.training import HELD_OUT, TrainingChecker
from runner.kit.truth import load_module, trusted_context
from runner.problems import load_problem

PROBLEM = load_problem("debug-mlp-classifier")
TEST = next(test for test in PROBLEM.tests if test.name == "sample-1024-samples")
NAMES = {"model": "Model", "train": ["x", "y"], "evaluate": ["x_eval"]}


def drawn(checker, seed=0):
    return checker.inputs(TEST.params, torch.Generator().manual_seed(seed))


def trained(solution_path, inputs):
    """What the kit's driver reports for a solution file of the problem, trained here."""
    name = "judge_test_training_" + solution_path.replace("/", "_").removesuffix(".py")
    return sandbox_training.run(NAMES, load_module(PROBLEM.path / solution_path, name), TEST.params, inputs,
                                trusted_context())


def test_held_out_data_stays_on_the_trusted_side_and_is_found_again_by_the_inputs_sent():
    checker = TrainingChecker(PROBLEM)
    sent = drawn(checker)
    assert not any(name.startswith(HELD_OUT) for name in sent)
    assert {"x", "y", "x_eval", "seed", "model.net.0.weight"} <= set(sent)
    held = checker.held_out(sent)
    assert set(held) == {"held_out.x", "held_out.y"} and held["held_out.x"].shape[0] == 4096
    assert torch.equal(checker.held_out({name: t.clone() for name, t in sent.items()})["held_out.y"],
                       held["held_out.y"])


def test_inputs_never_drawn_here_are_an_error_of_the_judge_not_a_verdict():
    checker = TrainingChecker(PROBLEM)
    sent = drawn(checker)
    sent["x"] = sent["x"] + 1
    try:
        checker.held_out(sent)
    except ValueError as error:
        assert "not drawn by this checker" in str(error)
    else:
        raise AssertionError("inputs that were not drawn here found held-out data")


def test_the_driver_reports_frozen_parameters_as_parameters_and_buffers_as_buffers():
    class Model(torch.nn.Module):
        def __init__(self, **config):
            super().__init__()
            self.layer = torch.nn.Linear(2, 2)
            self.layer.bias.requires_grad_(False)
            self.register_buffer("count", torch.zeros(()))

    solution = type("solution", (), {"Model": Model, "train": staticmethod(lambda model, *data, steps, seed: None),
                                     "evaluate": staticmethod(lambda model, x: x)})
    inputs = {"model.layer.weight": torch.ones(2, 2), "seed": torch.tensor([3]), "x_eval": torch.ones(1, 2)}
    reported = sandbox_training.run(NAMES | {"train": []}, solution, {"steps": 1}, inputs, trusted_context())
    assert set(reported) == {"parameter.layer.weight", "parameter.layer.bias", "buffer.count", "predictions",
                             "predictions again"}
    assert torch.equal(reported["parameter.layer.weight"], torch.ones(2, 2))


def test_a_fixed_script_passes_and_each_crafted_failure_says_what_was_observed():
    checker = TrainingChecker(PROBLEM)
    inputs = drawn(checker, seed=5)
    got = trained("reference.py", inputs)
    assert checker.check(TEST.params, inputs, got, got) is None

    unmoved = dict(got, **{"parameter.net.3.bias": inputs["model.net.3.bias"].clone()})
    message = checker.check(TEST.params, inputs, unmoved, got)
    assert "`net.3.bias` ended exactly where the judge initialised it" in message and "optimizer" in message

    diverged = dict(got, **{"parameter.head.weight": torch.full_like(got["parameter.head.weight"], float("nan"))})
    assert "head.weight holds NaN or infinity: training diverged" in checker.check(TEST.params, inputs, diverged, got)

    untrained = dict(got, **{name: inputs["model." + name.removeprefix("parameter.")] + 1e-3 for name in got
                             if name.startswith("parameter.")})
    message = checker.check(TEST.params, inputs, untrained, got)
    assert "held out accuracy is" in message and "needs at least 0.88 (`min_held_out_accuracy = 0.88`)" in message

    noisy = dict(got, **{"predictions again": got["predictions"] + 1e-3})
    assert "different predictions on two calls" in checker.check(TEST.params, inputs, noisy, got)

    off = dict(got, **{"predictions": got["predictions"] * 2, "predictions again": got["predictions"] * 2})
    assert "differ from the trained model's in evaluation mode" in checker.check(TEST.params, inputs, off, got)

    missing = {name: value for name, value in got.items() if name != "parameter.head.bias"}
    assert "head.bias" in checker.check(TEST.params, inputs, missing, got)


def test_a_statement_of_a_debugging_problem_states_every_test_with_its_sizes_and_targets():
    test = TEST
    assert stated_numbers.sizes_of(test, "debugging") == {"d_in": 16, "d_hidden": 64, "n_classes": 4,
                                                          "samples": 1024, "steps": 300,
                                                          "min_held_out_accuracy": 0.88}
    assert [t.name for t in stated_numbers.stated_tests(PROBLEM)] == [t.name for t in PROBLEM.tests]
    assert stated_numbers.tolerance_of(PROBLEM) == {"prediction_tolerance": 1e-4}
    assert stated_numbers.disagreements(PROBLEM) == []


def test_a_frozen_buffer_that_drifts_is_named_and_a_frozen_backbone_left_alone_passes_that_check():
    problem = load_problem("debug-frozen-backbone")
    checker = TrainingChecker(problem)
    test = problem.tests[0]
    inputs = checker.inputs(test.params, torch.Generator().manual_seed(1))
    kept = {("buffer." if name.split(".")[-1].startswith(("running", "num_batches")) else "parameter.")
            + name.removeprefix("model."): tensor.clone() for name, tensor in inputs.items()
            if name.startswith("model.")}
    kept["parameter.head.weight"] += 1e-3
    kept["parameter.head.bias"] += 1e-3
    assert checker.moved(test.params, inputs, kept, kept) is None
    drifted = dict(kept, **{"buffer.backbone.4.running_var": kept["buffer.backbone.4.running_var"] * 1.01})
    message = checker.moved(test.params, inputs, drifted, drifted)
    assert message.startswith("`backbone.4.running_var` changed during training, and must stay frozen")
    assert "only eval mode stops batch norm" in split_why(message)[1]


def test_a_lesson_may_be_a_function_of_the_tests_params_and_the_scores():
    checker = TrainingChecker(PROBLEM)
    seen = []
    checker.lessons = {"held_out_accuracy": lambda params, scores: seen.append((params, scores)) or "memorised"}
    message = checker.missed(TEST.params, {"held_out_accuracy": 0.5, "train_loss": 0.01})
    assert split_why(message) == (split_why(message)[0], "Memorised")
    assert split_why(message)[0].endswith("(`min_held_out_accuracy = 0.88`).")
    assert seen == [(TEST.params, {"held_out_accuracy": 0.5, "train_loss": 0.01})]
