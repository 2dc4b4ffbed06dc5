"""Trusted checker: inputs from a seed, and comparison against an exact float64 softmax.

The tolerance is backward-error based: an algorithm is accepted when its error is within a few rounding
units of the largest input magnitude (the inputs themselves carry that much uncertainty), or within a few
times the reference's own error, whichever is larger. A naive exp overflows at magnitude 1e4 and fails.

What the driver reports is the submission's to change, so it only ever fails a test: a missing output, or
`returned x` saying the result is the input, is a wrong answer, worded here.
"""

import math

import torch

from runner import compare

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def inputs(params, generator):
    shape = list(params["shape"])
    stored = [shape[-1], *shape[1:-1], shape[0]] if params.get("layout") == "transposed" else shape
    x = torch.randn(stored, generator=generator, dtype=torch.float64) * params.get("scale", 3.0)
    x = x + params.get("offset", 0.0)
    grad = torch.randn(shape, generator=generator, dtype=torch.float64)
    dtype = DTYPES[params["dtype"]]
    return {"x": x.to(dtype), "grad": grad.to(dtype)}


def called_with(params, x):
    """x as the driver passes it to softmax."""
    return x.transpose(0, -1) if params.get("layout") == "transposed" else x


def exact(params, x, grad):
    """softmax and its input gradient in float64."""
    x64, grad64 = called_with(params, x).to(torch.float64), grad.to(torch.float64)
    dim = params.get("dim", -1)
    shifted = x64 - x64.amax(dim, keepdim=True)
    y = shifted.exp() / shifted.exp().sum(dim, keepdim=True)
    return y, y * (grad64 - (grad64 * y).sum(dim, keepdim=True))


def describe(params):
    """The call, as the user wrote it: softmax(x, dim=0) of a 6×4×5 float32 tensor."""
    shape = "×".join(map(str, params["shape"]))
    args = f"x, dim={params['dim']}" if "dim" in params else "x"
    call = f"softmax({args}) of a {shape} {params['dtype']} tensor"
    if params.get("layout") == "transposed":
        call += " (a transposed, non-contiguous view)"
    if "dim" not in params:
        call += ", dim left at its default (the last dimension, dim=-1)"
    return call


def check(params, inputs, got, expected):
    """None if got is right, else a message saying what is wrong, in terms of the call."""
    call = describe(params)
    if got.get("y") is None:
        return f"{call}: softmax returned no torch.Tensor"
    returned_x = got.get("returned x")
    if returned_x is None or returned_x.shape != () or returned_x.dtype != torch.bool:
        return f"{call}: the driver's report is missing or malformed (was the driver changed?)"
    if bool(returned_x):
        return f"{call}: softmax returned its input x (or a view of it); it must return a new tensor"
    mismatch = compare.layout("the output", got["y"], expected["y"])
    if mismatch:
        return f"{call}: {mismatch}"
    if got.get("grad") is None:
        return (f"{call}: x.grad is None after backward: the output does not require grad, or is not connected "
                "to x; softmax must be differentiable with respect to x (no .detach(), .data, .item() or NumPy "
                "on the way)")
    mismatch = compare.layout("x.grad", got["grad"], expected["grad"])
    if mismatch:
        return f"{call}: {mismatch}"
    y, dx = exact(params, inputs["x"], inputs["grad"])
    eps = torch.finfo(DTYPES[params["dtype"]]).eps
    magnitude = max(1.0, inputs["x"].abs().max().item())
    reference_error = (expected["y"].to(torch.float64) - y).abs().max().item()
    atol_y = max(16 * eps * magnitude, 4 * reference_error)
    atol_dx = atol_y * (1 + 2 * inputs["grad"].abs().max().item())
    message = compare.tensors("the output", got["y"].to(torch.float64), y, atol=atol_y, rtol=0)
    if message:
        return f"{call}: {message}{stability_hint(params, inputs['x'], got['y'])}"
    message = compare.tensors("x.grad", got["grad"].to(torch.float64), dx, atol=atol_dx, rtol=0)
    if message:
        return f"{call}, gradient with respect to x: {message}"
    return None


def stability_hint(params, x, y):
    """Why the output is not finite, when the slices it is not finite in are ones where exp overflows, or
    underflows for every entry. Words only: no value of the input or the output."""
    bad = ~torch.isfinite(y)
    if not bad.any():
        return ""
    x = called_with(params, x).to(torch.float64)
    slice_max = x.amax(params.get("dim", -1), keepdim=True).expand_as(x)[bad]
    limit = math.log(torch.finfo(y.dtype).max)
    if (slice_max > limit).any():
        return (" — exp overflows to inf for inputs this large, and inf / inf is NaN: subtract the maximum along "
                "dim before exponentiating")
    if (slice_max < -limit).any():
        return (" — exp underflows to 0 for every entry of a slice this far below zero, and 0 / 0 is NaN: "
                "subtract the maximum along dim, whatever its sign, so that the largest term is exactly 1")
    return ""
