"""stable-softmax's own code: its inputs, the call in the user's words, and why an output is not finite."""

import math

import torch

from runner import kit

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def inputs(params, generator):
    shape = list(params["shape"])
    # A transposed test's x is drawn with its first and last dimensions swapped; the kit passes x.transpose(0, -1).
    stored = [shape[-1], *shape[1:-1], shape[0]] if params.get("transposed") else shape
    x = torch.randn(stored, generator=generator, dtype=torch.float64) * params.get("scale", 3.0)
    x = x + params.get("offset", 0.0)
    dy = torch.randn(shape, generator=generator, dtype=torch.float64)
    dtype = DTYPES[params["dtype"]]
    return {"x": x.to(dtype), "dy": dy.to(dtype)}


def describe(params, inputs):
    """The call, as the user wrote it: softmax(x, dim=0) of a 6×4×5 float32 tensor."""
    args = f"x, dim={params['dim']}" if "dim" in params else "x"
    call = f"softmax({args}) of a {'×'.join(map(str, params['shape']))} {params['dtype']} tensor"
    if params.get("transposed"):
        call += " (a transposed, non-contiguous view)"
    if "dim" not in params:
        call += ", dim left at its default (the last dimension, dim=-1)"
    return call


def diagnose(name, params, inputs, got, truth):
    """Why y is not finite, when the slices it is not finite in are ones where exp overflows, or underflows
    for every entry. Words only: no value of the input or the output."""
    bad = ~torch.isfinite(got)
    if name != "y" or not bad.any():
        return ""
    x = inputs["x"].to(torch.float64)
    x = x.transpose(0, -1) if params.get("transposed") else x
    slice_max = x.amax(params.get("dim", -1), keepdim=True).expand_as(x)[bad]
    limit = math.log(torch.finfo(got.dtype).max)
    if (slice_max > limit).any():
        return kit.why_after_colon(
            "exp overflows to inf for inputs this large, and inf / inf is NaN: subtract the maximum along dim "
            "before exponentiating")
    if (slice_max < -limit).any():
        return kit.why_after_colon(
            "exp underflows to 0 for every entry of a slice this far below zero, and 0 / 0 is NaN: subtract "
            "the maximum along dim, whatever its sign, so that the largest term is exactly 1")
    return ""
