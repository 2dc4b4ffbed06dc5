"""The kit's trusted side for problems whose submission wraps blocks the judge builds (runner/kit/
sandbox_wrapper.py runs them): a scenario's inputs, the judgement of what it reported, and the plain model's
peak memory as a bound.

The sandbox's reports of what it saw in the submission's process (whether each output records a graph, how
often a block ran, which gradients exist) are claims: each is validated, a missing or malformed one fails the
test, and what they must be is decided here from the test's parameters. A wrapper that computes the plain
block's very operations matches the reference to the last bit on the CPU: the tolerance, 1e-5 of each tensor's
largest magnitude, only leaves room for kernels that reorder sums; the random stream afterwards must match
exactly. What a mistake means is the problem's to say, through `Lessons`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import torch

from runner import compare
from runner.verdict import with_why
from runner.harness.measure import OperatorWatch

from . import api, sandbox_wrapper
from .reports import scalar
from .truth import load_module

RELATIVE_TOLERANCE = 1e-5
MIB = 1 << 20
# The outputs compared by value; the other names are the sandbox's reports of what it saw.
VALUES = ("out", "x.grad", "grad:")
GRAD_DISABLED = {"no_grad": "no_grad", "inference": "inference_mode"}
TAMPERED = "no valid report of what the call did came back: the driver's report was removed or changed"


@dataclass(frozen=True)
class Lessons:
    """What a problem's messages add to the kit's, in its own terms."""

    wrapper: str = "the wrapper"
    # Why the block runs once (mode: eval, no_grad or inference), after "it must run once, as the plain block does".
    once: Callable[[str], str] = lambda mode: ""
    # Why the gradients differ while the outputs match, for the test's params (the failure's why).
    gradients: Callable[[dict], str] = lambda params: ""
    # How the random streams end where the plain block leaves them (the failure's why).
    rng: str = ""


# problem.toml's tables a wrapper problem reads: `[interface]`'s `call`, the class that wraps each block.
WRAPPER_TABLES: api.Table = {"interface": {"call": None}}
LESSONS = api.Hook("LESSONS", None, "a kit.Lessons: what the problem's messages add to the kit's", required=True)


def _times(count: float) -> str:
    return f"{count:g} time{'' if count == 1 else 's'}"


def driver_source(package: api.Package) -> str:
    """The driver the sandbox runs for a wrapper problem: the scenario, every block wrapped in the class that
    `[interface]`'s `call` names."""
    return (f'"""The kit\'s wrapper scenario (kit_wrapper) for {package.slug}, every block wrapped in the '
            'submission\'s class."""\nimport kit_wrapper\n\n\n'
            "def run(solution, params, inputs, ctx, _run=kit_wrapper.counted_run()):\n"
            f"    return _run(solution.{package.interface['call']}, params, inputs, ctx)\n")


def checker_for(package: api.Package) -> WrapperChecker:
    """The wrapper kind's checker for package, in the words of its spec.py's LESSONS."""
    spec = load_module(package.path / "spec.py", f"judge_kit_{package.slug.replace('-', '_')}_{package.version[:12]}_spec")
    return WrapperChecker(api.hooks_of(spec, (LESSONS,), f"{package.slug}/spec.py")["LESSONS"])


class WrapperChecker(api.CheckerBase):
    """The wrapper kind's checker: the scenario's inputs, the judgement of what it reported, and the plain
    model's peak memory as a bound."""

    def __init__(self, lessons: Lessons):
        self.lessons = lessons
        self._plain_peaks: dict[str, int] = {}

    def inputs(self, params, generator):
        d_in = params.get("d_in", params.get("d_model"))
        d_out = params.get("d_out", params.get("d_model"))
        tensors = {"seed": torch.randint(0, 2**31 - 2, (), generator=generator)}
        for call, (batch, length) in enumerate(params["shapes"]):
            tensors[f"x{call}"] = torch.randn(batch, length, d_in, generator=generator)
            # A unit-norm direction: an SGD step of 0.1 along its gradient moves a model, it does not blow it up.
            direction = torch.randn(batch, length, d_out, generator=generator, dtype=torch.float64)
            tensors[f"w{call}"] = (direction / direction.norm()).float()
        return tensors

    def check(self, params, inputs, got, expected):
        """None if every report is what the plain block gives, else the first that is not, and what it points to."""
        message = self.graph_message(params, got, expected) or self.missing_gradient(params, got, expected)
        if message:
            return message
        # In the sandbox's order: each call's output, then its input gradient, then the parameters' gradients; so
        # a gradient that differs follows outputs that matched.
        for name in expected:
            if not name.startswith(VALUES):
                continue
            message = compare.tensors(describe(name, params), got.get(name), expected[name],
                                      atol=tolerance(expected[name]), rtol=0)
            if message:
                return message if name.startswith("out") else message + self.gradients_hint(params)
        message = compare.tensors("the random numbers drawn after backward (torch.rand(8))", got.get("rng"),
                                  expected["rng"], atol=0, rtol=0)
        if message:
            return with_why(f"{message} — the global RNG state is not where the plain model leaves it",
                            self.lessons.rng.lstrip(":; "))
        return None

    def graph_message(self, params, got, expected):
        """What is wrong with each call's reports of whether its output records a graph and how often the block
        ran: by its hook's count, then by the layer norms the call dispatched, against the reference's."""
        mode = params.get("mode", "train")
        records = mode not in GRAD_DISABLED
        for call in range(len(params["shapes"])):
            requires_grad = scalar(got.get(f"requires_grad{call}"), torch.bool)
            if requires_grad is None:
                return TAMPERED
            if requires_grad != records:
                return graph_lost(params) if records else (
                    f"under {GRAD_DISABLED[mode]} the output requires grad, but the plain block's does not: nothing "
                    "may be recorded for a backward pass that cannot happen")
            if params.get("count_calls"):
                runs, norms = (scalar(got.get(f"{name}{call}"), torch.int64) for name in ("runs", "norms"))
                if runs is None or norms is None or not 0 <= runs <= 1_000_000 or not 0 <= norms <= 1_000_000:
                    return TAMPERED
                # The reference's counts, from its own sandbox, in checked and timed calls alike: each block runs
                # once per call, and once more in backward where training checkpoints it.
                expected_runs, expected_norms = int(expected[f"runs{call}"]), int(expected[f"norms{call}"])
                if runs != expected_runs or norms != expected_norms:
                    blocks = params.get("blocks", 1) if params["model"] in ("stack", "heads") else 1
                    share = runs / expected_runs if runs != expected_runs else norms / expected_norms
                    return self.calls_message(share * expected_runs / blocks, expected_runs / blocks, mode, params)
        return None

    def calls_message(self, runs, expected, mode, params):
        """Why a block ran `runs` times per call (on average, in a model of several) where it must run `expected`."""
        block = "each block" if params["model"] in ("stack", "heads") else "the block"
        if mode in GRAD_DISABLED:
            where = f"in training mode under {GRAD_DISABLED[mode]} {block} ran {_times(runs)} for one forward"
        elif mode == "eval":
            where = f"in eval mode with grad enabled {block} ran {_times(runs)} for one forward and backward"
        elif expected == 2:
            return (f"in training mode {block} ran {_times(runs)} for one forward and backward; checkpointed, it runs "
                    "twice: once in the forward pass, keeping only its input, and once more in backward, to rebuild "
                    "the activations it did not keep")
        else:
            return f"in training mode {block} ran {_times(runs)} for one call; the reference's ran {_times(expected)}"
        return f"{where}; it must run once, as the plain block does{self.lessons.once(mode)}"

    def missing_gradient(self, params, got, expected):
        """The first gradient the plain block has and the wrapped one does not, or a frozen parameter's gradient."""
        for name in expected:
            if name in got:
                continue
            if name.startswith("x.grad"):
                return (f"the input gradient x.grad{of_call(name, 'x.grad', params)} is None after backward, but "
                        "the plain block's is not: the output is not connected to x")
            if name.startswith("grad:"):
                return (f"the gradient of parameter {name.removeprefix('grad:')} is None after backward, but the "
                        f"plain block's is not: autograd never delivered the block's parameter gradients through "
                        f"{self.lessons.wrapper}, or the parameters that ran were a copy's, not the block's")
        if "frozen_grads" in expected:
            frozen = scalar(got.get("frozen_grads"), torch.int64)
            if frozen is None:
                return TAMPERED
            if frozen:
                return ("a frozen parameter (requires_grad=False) received a gradient, which the plain block never "
                        "gives it")
        return None

    def gradients_hint(self, params):
        """Said after a wrong gradient; what the problem's lesson adds (what a recomputation must rebuild) is the
        why."""
        return with_why(" — the outputs match the plain block's, the gradients do not: backward did not "
                        "differentiate the forward that was run", self.lessons.gradients(params).lstrip(":; "))

    def memory_limit(self, params, inputs):
        """For a test with `plain_fraction`: that fraction of the plain model's peak, measured here as the sandbox
        measures a submission's (the same scenario, the same tensor tracker, no wrapper)."""
        fraction = params.get("plain_fraction")
        if fraction is None:
            return None
        key = json.dumps(params, sort_keys=True)
        if key not in self._plain_peaks:
            watch = OperatorWatch([], track_memory=True)
            # The judge's own random stream is not the plain model's to move.
            with torch.random.fork_rng(devices=[]), watch:
                sandbox_wrapper.scenario(None, params, inputs, RuntimeError)
            self._plain_peaks[key] = watch.peak_bytes
        peak = self._plain_peaks[key]
        return (int(fraction * peak), f"and at most {fraction:.0%} of the {peak / MIB:.2f} MiB the same blocks keep "
                "at their peak when run plainly")


def graph_lost(params):
    raw = not params.get("x_requires_grad", True)
    if params.get("mode") == "eval":
        because = "its parameters require grad, even though x does not" if raw else "x and its parameters require grad"
        return with_why(f"in eval mode with grad enabled the output does not require grad, but the plain block's "
                        f"does ({because})", "In eval mode autograd still records: eval() is not no_grad(); it only "
                        "switches dropout off, and gradients with respect to the input and the parameters (saliency "
                        "maps, adversarial examples, probing) must still flow")
    if raw:
        return ("x does not require grad, and the output does not either, but the plain block's does (its "
                "parameters require grad): the block's parameter gradients would be lost")
    return with_why("the output does not require grad, but the plain block's does",
                    "The output stays connected to x and to the block's parameters")


def of_call(name, prefix, params):
    return f" of call {int(name.removeprefix(prefix)) + 1}" if len(params["shapes"]) > 1 else ""


def describe(name, params):
    if name.startswith("grad:"):
        return f"the gradient of parameter {name.removeprefix('grad:')}"
    call = int(name.removeprefix("x.grad").removeprefix("out"))
    what = "the output" if name.startswith("out") else "the input gradient x.grad"
    if len(params["shapes"]) > 1:
        shape = (*params["shapes"][call], params.get("d_in", params.get("d_model")))
        what += f" of call {call + 1} (x of shape {shape})"
    return f"{what} [batch, position, feature]"


def tolerance(expected):
    return RELATIVE_TOLERANCE * max(expected.abs().max().item(), 1e-30) if expected.numel() else 0.0
