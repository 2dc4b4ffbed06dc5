"""The debugging kind: a training script the user repairs (or rewrites), judged by what the model it trains does.

The submission defines the problem's model class, `train(model, *data, steps, seed)` and `evaluate(model,
*inputs)`; the kit's driver (sandbox_training.py) builds the model, copies the judge's initial weights in, trains
it on the judge's data and reports the weights it ends with and two evaluations. Everything that decides the
verdict is computed here, from the weights reported and data the sandbox never sees:

- every weight the reference's run reports is reported, of its shape and dtype, and finite (a script that
  diverges ends with NaN or infinity);
- every parameter moved from where the judge initialised it (a layer frozen by mistake, or parameters the
  optimizer does not hold, end where they started), and every parameter and buffer that `[training] frozen`
  names (names or fnmatch patterns: `backbone.*`) ended exactly where it started (a backbone frozen by design
  whose batch-norm statistics still drift does not);
- the problem's own model (spec.predict, float64, in evaluation mode) with those weights reaches each target
  the test's params state: `min_<score>` (at least) and `max_<score>` (at most), of the scores spec.scores
  computes, among them scores on the held-out data spec.inputs draws under `held_out.` names, which are kept
  on this side;
- the submission's own evaluation returns the same predictions twice, and the predictions of the problem's
  model within `prediction_tolerance` (of the largest of 1 and their magnitude): an evaluation left in training
  mode (dropout, batch statistics) does neither.

What a failure means in the problem's terms (the bug that makes it) is spec.LESSONS's to add, by the check's
name: `unmoved`, `frozen`, `diverged`, `evaluation` and each score's; a lesson is words, or a function of the
test's params and the scores (a missed target's lesson may tell overfitting from a bug by the training score).
"""

from __future__ import annotations

import fnmatch
import threading
from collections import OrderedDict
from collections.abc import Callable

import torch

from runner import compare
from runner.verdict import with_why

from . import api
from .api import Hook, KitError, Package, Params, Table, Tensors
from .memo import DRAWN_INPUTS, inputs_digest
from .sandbox_training import AGAIN, BUFFER, MODEL, PARAMETER, PREDICTIONS
from .truth import load_module

HELD_OUT = "held_out."
PREDICTION_TOLERANCE = 1e-4
# How many tests' held-out data this process keeps: a judgement draws each test's inputs and checks it soon after,
# and a test's held-out data is a few hundred KiB (4096 samples), so 64 are tens of MiB at most.
HELD_OUT_KEPT = 64
TARGET = ("min_", "max_")

PREDICT = Hook("predict", ("params", "weights", "inputs"), "the model's float64 outputs in evaluation mode on the "
               "evaluate inputs given, from the weights given by name (parameters and buffers)", required=True)
SCORES = Hook("scores", ("params", "inputs", "predict"), "{score: value} of the trained weights; predict(*tensors) "
              "is the model's float64 outputs on them, inputs hold the held_out. tensors", required=True)
LESSONS = Hook("LESSONS", None, "what a failed check means in the problem's terms, by the check's name: unmoved, "
               "frozen, diverged, evaluation, or a score's; words, or a function of (params, scores) giving them")
TRAINING_HOOKS = (api.INPUTS, PREDICT, SCORES, LESSONS, api.DESCRIBE, api.CHECK, api.MEMORY_LIMIT)
# problem.toml's tables a debugging problem reads: the names the driver calls, and the kit's own settings.
TRAINING_TABLES: Table = {"interface": {"call": None, "model": None, "train": None, "evaluate": None},
                          "training": {"frozen": None, "prediction_tolerance": None}}


def driver_source(package: Package) -> str:
    """The driver the sandbox runs for a debugging problem: kit_training with the problem's `[interface]`."""
    names = {key: package.interface[key] for key in ("model", "train", "evaluate") if key in package.interface}
    return ('"""The kit\'s training run (kit_training) for ' f'{package.slug}."""\nimport kit_training\n\n\n'
            f"def run(solution, params, inputs, ctx, _run=kit_training.run, _names={names!r}):\n"
            "    return _run(_names, solution, params, inputs, ctx)\n")


def targets(params: Params) -> dict[str, float]:
    """The test's targets: its `min_<score>` and `max_<score>` params."""
    return {name: value for name, value in params.items() if name.startswith(TARGET)}


class TrainingChecker(api.CheckerBase):
    """The debugging kind's checker."""

    def __init__(self, package: Package):
        self.package = package
        spec = load_module(package.path / "spec.py",
                           f"judge_kit_{package.slug.replace('-', '_')}_{package.version[:12]}_spec")
        self.spec = spec
        self.own = api.hooks_of(spec, TRAINING_HOOKS, f"{package.slug}/spec.py")
        self.lessons: dict[str, str] = self.own.get("LESSONS", {})
        training = package.declared.get("training", {})
        self.frozen = set(training.get("frozen", []))
        self.tolerance = training.get("prediction_tolerance", PREDICTION_TOLERANCE)
        self._held: OrderedDict[str, Tensors] = OrderedDict()
        self._lock = threading.Lock()

    def inputs(self, params: Params, generator: torch.Generator) -> Tensors:
        """spec.inputs's tensors but the held-out ones, which stay here, and last the seed train receives."""
        drawn = DRAWN_INPUTS.draw(self.own["inputs"], self.spec, params, generator)
        sent = {name: tensor for name, tensor in drawn.items() if not name.startswith(HELD_OUT)}
        sent["seed"] = torch.randint(0, 2 ** 31 - 1, (1,), generator=generator)
        with self._lock:
            self._held[inputs_digest(sent)] = {name: t for name, t in drawn.items() if name.startswith(HELD_OUT)}
            while len(self._held) > HELD_OUT_KEPT:
                self._held.popitem(last=False)
        return sent

    def memory_limit(self, params: Params, inputs: Tensors) -> tuple[int, str] | None:
        own = self.own.get("memory_limit")
        return own(params, inputs) if own else None

    def held_out(self, inputs: Tensors) -> Tensors:
        with self._lock:
            held = self._held.get(inputs_digest(inputs))
        if held is None:
            raise KitError(f"{self.package.slug}: no held-out data kept for these inputs: they were not drawn by "
                           "this checker")
        return held

    def check(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        head = self.own["describe"](params, inputs) if "describe" in self.own else ""
        message = self.layout(got, expected) or self.moved(params, inputs, got, expected)
        if message:
            return compare.headed(head, message)
        weights = {name.split(".", 1)[1]: got[name].to(torch.float64) for name in expected
                   if name.startswith((PARAMETER, BUFFER))}

        def predict(*tensors: torch.Tensor) -> torch.Tensor:
            with torch.no_grad():
                return self.own["predict"](params, weights, [t.to(torch.float64) if t.is_floating_point() else t
                                                             for t in tensors])

        scores = self.own["scores"](params, {**inputs, **self.held_out(inputs)}, predict)
        message = self.missed(params, scores) or self.evaluation(params, inputs, got, predict)
        if message:
            return compare.headed(head, message)
        own = self.own.get("check")
        return own(params, inputs, got, scores) if own else None

    def layout(self, got: Tensors, expected: Tensors) -> str | None:
        """Why the reports are not the reference's names, shapes and dtypes, or not finite; None when they are."""
        for name in expected:
            message = compare.layout(_called(name), got.get(name), expected[name])
            if message:
                return message
        broken = [_called(name) for name in expected if name.startswith((PARAMETER, BUFFER))
                  and got[name].is_floating_point() and not torch.isfinite(got[name]).all()]
        if broken:
            return self.taught("diverged", f"after training, {_listed(broken)} {_holds(broken)} NaN or infinity: "
                                           "training diverged")
        return None

    def moved(self, params: Params, inputs: Tensors, got: Tensors, expected: Tensors) -> str | None:
        """Why a parameter that must learn ended where it started, or a frozen parameter or buffer moved; None
        when neither."""
        unmoved, drifted = [], []
        for name in expected:
            if not name.startswith((PARAMETER, BUFFER)):
                continue
            short = name.split(".", 1)[1]
            start = inputs.get(MODEL + short)
            if start is None:
                continue
            still = torch.equal(got[name].cpu(), start)
            if self.is_frozen(short):
                if not still:
                    drifted.append(f"`{short}`")
            elif name.startswith(PARAMETER) and still:
                unmoved.append(f"`{short}`")
        if unmoved:
            them = "them" if len(unmoved) > 1 else "it"
            return self.taught("unmoved", f"after {params['steps']} steps, {_listed(unmoved)} ended exactly where "
                                          f"the judge initialised {them}: no update reached {them}")
        if drifted:
            return self.taught("frozen", f"{_listed(drifted)} changed during training, and must stay frozen as the "
                                         f"judge initialised {'them' if len(drifted) > 1 else 'it'}")
        return None

    def is_frozen(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.frozen)

    def missed(self, params: Params, scores: dict[str, float]) -> str | None:
        """Why a score misses the test's target, or None."""
        for target, bound in targets(params).items():
            name = target[len("min_"):]
            if name not in scores:
                raise KitError(f"{self.package.slug}: a test's target {target} names no score spec.scores returns "
                               f"(it returns {', '.join(sorted(scores))})")
            value = float(scores[name])
            low = target.startswith("min_")
            if value != value or (value < bound if low else value > bound):
                words = name.replace("_", " ")
                return self.taught(name, f"after {params['steps']} steps, the trained model's {words} is "
                                         f"{value:.4g}; this test needs {'at least' if low else 'at most'} {bound:g} "
                                         f"(`{target} = {bound:g}`)", params, scores)
        return None

    def evaluation(self, params: Params, inputs: Tensors, got: Tensors, predict: Callable) -> str | None:
        """Why the submission's evaluate is not the model's evaluation, or None."""
        first, again = got.get(PREDICTIONS), got.get(AGAIN)
        if first is None or again is None:
            return "evaluate returned no tensor"
        if first.shape != again.shape or not torch.equal(first, again):
            return self.taught("evaluation", "evaluate gave different predictions on two calls with the same "
                                             "trained weights and inputs")
        truth = predict(*[inputs[name] for name in self.package.interface.get("evaluate", [])])
        if first.shape != truth.shape:
            return f"evaluate returned a tensor of shape {tuple(first.shape)}; the model's outputs are of shape " \
                   f"{tuple(truth.shape)}"
        allowed = self.tolerance * max(1.0, truth.abs().max().item() if truth.numel() else 0.0)
        worst = (first.to(torch.float64) - truth).abs().max().item() if truth.numel() else 0.0
        if not worst <= allowed:
            return self.taught("evaluation", f"evaluate's predictions differ from the trained model's in evaluation "
                                             f"mode by up to {worst:.3g} (allowed: {allowed:.3g})")
        return None

    def taught(self, check: str, message: str, params: Params | None = None,
               scores: dict[str, float] | None = None) -> str:
        """message, then what the check's failure means in the problem's terms, as its why (where to look, which
        is most of the fix of a debugging task): spec.LESSONS's words for it, or what its function of the test's
        params and the scores (where the check has them) says."""
        lesson = self.lessons.get(check)
        if callable(lesson):
            lesson = lesson(params or {}, scores or {})
        return with_why(f"{message}.", lesson) if lesson else message


def _called(name: str) -> str:
    """A report's name in a message: a parameter's own name, a buffer's after the word."""
    return name.removeprefix(PARAMETER) if name.startswith(PARAMETER) else \
        f"buffer {name.removeprefix(BUFFER)}" if name.startswith(BUFFER) else name


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _holds(names: list[str]) -> str:
    return "holds" if len(names) == 1 else "hold"


__all__ = ["HELD_OUT", "LESSONS", "PREDICT", "PREDICTION_TOLERANCE", "SCORES", "TRAINING_HOOKS", "TRAINING_TABLES",
           "TrainingChecker", "driver_source", "targets"]
