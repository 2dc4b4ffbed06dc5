"""Trusted checker: a seed and inputs per test, every output compared with the reference's from the same driver
on the same device, and the plain stack's peak memory, measured here, as a bound for the memory tests.

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
    """None if every output equals the reference's, else the first that differs, and what that points to."""
    # In the driver's order: each call's output, then its input gradient, then the parameters' gradients; so a
    # gradient that differs follows outputs that matched.
    for name in expected:
        if name == "rng":
            continue
        what = describe(name, params)
        message = compare.layout(what, got.get(name), expected[name])
        if message:
            return message
        message = compare.tensors(what, got[name], expected[name], atol=tolerance(expected[name]), rtol=0)
        if message:
            return message if name.startswith("out") else message + recomputation_hint(params)
    message = compare.tensors("the random numbers drawn after backward (torch.rand(8))", got.get("rng"),
                              expected["rng"], atol=0, rtol=0)
    if message:
        return (f"{message} — the global RNG state is not where the plain model leaves it: a recomputation that "
                "rewinds the RNG to replay the forward's dropout masks must restore it afterwards "
                "(torch.random.fork_rng), or the next step's masks repeat earlier ones")
    return None


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
