"""Trusted checker: a seed and inputs per test, every output compared with the reference's from the same driver
on the same device, and the plain stack's peak memory, measured here, as a bound for the memory tests.

The driver's reports of what it saw in the submission's process (whether each output records a graph, how
often the block ran, which gradients exist) are claims: each is validated, a missing or malformed one fails
the test, and what they must be is decided here from the test's parameters.

A checkpointed block computes the very operations of the plain block, so a correct one matches it to the last
bit on the CPU; the tolerance, 1e-5 of each tensor's largest magnitude, only leaves room for kernels that
reorder sums. The nearest classic mistake (a replay outside the forward's autocast) is off by 3e-3 of it. The
random-number stream after backward must match exactly.
"""

import json

import torch

from runner import compare
from runner.harness.measure import OperatorWatch
from runner.problems import load_sibling

RELATIVE_TOLERANCE = 1e-5
MIB = 1 << 20
# The outputs compared by value; the other names are the driver's reports of what it saw.
VALUES = ("out", "x.grad", "grad:")
GRAD_DISABLED = {"no_grad": "no_grad", "inference": "inference_mode"}
TAMPERED = "no valid report of what the call did came back: the driver's report was removed or changed"
blocks = load_sibling(__file__, "blocks.py")
driver = load_sibling(__file__, "driver.py")
_plain_peaks: dict[str, int] = {}


def inputs(params, generator):
    d_in = params.get("d_in", params.get("d_model"))
    d_out = params.get("d_out", params.get("d_model"))
    tensors = {"seed": torch.randint(0, 2**31 - 2, (), generator=generator)}
    for call, (batch, length) in enumerate(params["shapes"]):
        tensors[f"x{call}"] = torch.randn(batch, length, d_in, generator=generator)
        # A unit-norm direction: an SGD step of 0.1 along its gradient moves a model, it does not blow it up.
        direction = torch.randn(batch, length, d_out, generator=generator, dtype=torch.float64)
        tensors[f"w{call}"] = (direction / direction.norm()).float()
    return tensors


def check(params, inputs, got, expected):
    """None if every report is what the plain block gives, else the first that is not, and what that points to."""
    message = graph_message(params, got) or missing_gradient(params, got, expected)
    if message:
        return message
    # In the driver's order: each call's output, then its input gradient, then the parameters' gradients; so a
    # gradient that differs follows outputs that matched.
    for name in expected:
        if not name.startswith(VALUES):
            continue
        what = describe(name, params)
        message = compare.tensors(what, got.get(name), expected[name], atol=tolerance(expected[name]), rtol=0)
        if message:
            return message if name.startswith("out") else message + recomputation_hint(params)
    message = compare.tensors("the random numbers drawn after backward (torch.rand(8))", got.get("rng"),
                              expected["rng"], atol=0, rtol=0)
    if message:
        return (f"{message} — the global RNG state is not where the plain model leaves it: a recomputation that "
                "rewinds the RNG to replay the forward's dropout masks must restore it afterwards "
                "(torch.random.fork_rng), or the next step's masks repeat earlier ones")
    return None


def graph_message(params, got):
    """What is wrong with each call's reports of whether its output records a graph and how often the block ran."""
    mode = params.get("mode", "train")
    records = mode not in GRAD_DISABLED
    for call in range(len(params["shapes"])):
        requires_grad = scalar(got.get(f"requires_grad{call}"), torch.bool)
        if requires_grad is None:
            return TAMPERED
        if requires_grad != records:
            return graph_lost(params) if records else (
                f"under {GRAD_DISABLED[mode]} the output requires grad, but the plain block's does not: nothing may "
                "be recorded for a backward pass that cannot happen")
        if params.get("count_calls"):
            runs = scalar(got.get(f"runs{call}"), torch.int64)
            if runs is None or not 0 <= runs <= 1_000_000:
                return TAMPERED
            if runs != 1:
                return calls_message(runs, mode)
    return None


def scalar(report, dtype):
    """The value of a reported scalar of dtype, or None when the report is not one."""
    if report is None or report.dtype != dtype or report.dim() != 0:
        return None
    return bool(report) if dtype == torch.bool else int(report)


def graph_lost(params):
    raw = not params.get("x_requires_grad", True)
    if params.get("mode") == "eval":
        because = "its parameters require grad, even though x does not" if raw else "x and its parameters require grad"
        return (f"in eval mode with grad enabled the output does not require grad, but the plain block's does "
                f"({because}): eval() is not no_grad(); it only switches dropout off, and gradients with respect to "
                "the input and the parameters (saliency maps, adversarial examples, probing) must still flow")
    if raw:
        return ("x does not require grad, and the output does not either, but the plain block's does (its "
                "parameters require grad): the block's parameter gradients would be lost")
    return ("the output does not require grad, but the plain block's does: it must stay connected to x and to the "
            "block's parameters")


def calls_message(runs, mode):
    if mode in GRAD_DISABLED:
        return (f"in training mode under {GRAD_DISABLED[mode]} the block ran {runs} times for one forward; it must "
                "run once, as the plain block does: without a graph there is nothing to save and nothing to recompute")
    return (f"in eval mode with grad enabled the block ran {runs} times for one forward and backward; it must run "
            "once, as the plain block does: recomputing pays for itself only in training")


def missing_gradient(params, got, expected):
    """The first gradient the plain block has and the wrapped one does not, or a frozen parameter's gradient."""
    for name in expected:
        if name in got:
            continue
        if name.startswith("x.grad"):
            return (f"the input gradient x.grad{of_call(name, 'x.grad', params)} is None after backward, but the "
                    "plain block's is not: the output is not connected to x")
        if name.startswith("grad:"):
            return (f"the gradient of parameter {name.removeprefix('grad:')} is None after backward, but the plain "
                    "block's is not: autograd never delivered the block's parameter gradients through the "
                    "checkpoint, or the parameters that ran were a copy's, not the block's")
    if "frozen_grads" in expected:
        frozen = scalar(got.get("frozen_grads"), torch.int64)
        if frozen is None:
            return TAMPERED
        if frozen:
            return "a frozen parameter (requires_grad=False) received a gradient, which the plain block never gives it"
    return None


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


def recomputation_hint(params):
    needs = []
    if params.get("dropout", 0) > 0 and params.get("mode", "train") == "train":
        needs.append("the same dropout masks, replayed from the random-number state the forward started from")
    if "autocast" in params:
        needs.append(f"the {params['autocast']} precision autocast gave the forward")
    return (" — the outputs match the plain block's, the gradients do not: backward did not differentiate the "
            "forward that was run; a recomputation must rebuild exactly its activations"
            + (f": {'; '.join(needs)}" if needs else ""))


def memory_limit(params, inputs):
    """For a test with `plain_fraction`: that fraction of the plain model's peak, measured here as the sandbox
    measures a submission's (the same driver, the same tensor tracker, no wrapper)."""
    fraction = params.get("plain_fraction")
    if fraction is None:
        return None
    key = json.dumps(params, sort_keys=True)
    if key not in _plain_peaks:
        watch = OperatorWatch([], track_memory=True)
        # The judge's own random stream is not the plain model's to move.
        with torch.random.fork_rng(devices=[]), watch:
            driver.scenario(blocks, None, params, inputs, RuntimeError)
        _plain_peaks[key] = watch.peak_bytes
    peak = _plain_peaks[key]
    return (int(fraction * peak), f"and at most {fraction:.0%} of the {peak / MIB:.2f} MiB the same blocks keep "
            "at their peak without checkpointing")
