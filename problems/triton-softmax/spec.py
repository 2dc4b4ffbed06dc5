"""triton-softmax's own code: its inputs, its truth, its traffic bounds and why a wrong y is wrong."""

import math

import torch

from runner import kit

DTYPES = {"float32": torch.float32, "float16": torch.float16}


def inputs(params, generator):
    """x, or with `views` the storage the kit takes x's view of (its padding drawn like x)."""
    view = params.get("views", {}).get("x")
    shape = [params["rows"], params["cols"]] if view is None else \
        [view.get("offset", 0) + sum((n - 1) * s for n, s in zip(view["size"], view["stride"])) + 1]
    x = torch.randn(shape, generator=generator, dtype=torch.float64) * params.get("scale", 3.0)
    return {"x": (x + params.get("offset", 0.0)).to(DTYPES[params["dtype"]])}


def _matrix(params, inputs):
    """x as the call gets it (the kit has taken its view), in float64."""
    return inputs["x"].to(torch.float64)


def _softmax(x):
    e = (x - x.amax(dim=1, keepdim=True)).exp()
    return e / e.sum(dim=1, keepdim=True)


def truth(params, inputs):
    return {"y": _softmax(_matrix(params, inputs))}


def traffic(params, inputs):
    rows, cols, size = params["rows"], params["cols"], inputs["x"].element_size()
    return {"load": (2 * rows * cols * size + 8 * rows,
                     f"x read at most twice, 2 × rows × cols × {size} bytes, plus 8 bytes a row of statistics"),
            "store": (4 * rows * cols + 8 * rows,
                      "y written once, rows × cols × 4 bytes, plus 8 bytes a row of statistics")}


def contiguous(params, inputs):
    """x read as if it were contiguous: row r at element r × cols from x's first element."""
    x = inputs["x"]
    flat = torch.as_strided(x, (x.shape[0], x.shape[1]), (x.shape[1], 1), x.storage_offset())
    return {"y": _softmax(flat.to(torch.float64))}


def describe(params, inputs):
    call = f"softmax(x) of a {params['rows']}×{params['cols']} {params['dtype']} matrix"
    if not inputs["x"].is_contiguous():
        call += f" (a strided view: x.stride() is {tuple(inputs['x'].stride())})"
    if params.get("scale", 3.0) >= 100 or abs(params.get("offset", 0.0)) >= 100:
        call += f", logits of magnitude up to about {max(params.get('scale', 3.0) * 5, abs(params.get('offset', 0.0))):g}"
    return call


def diagnose(name, params, inputs, got, truth):
    """Why y is wrong, in words only: a row whose exponentials overflow or all underflow, or rows whose
    probabilities do not sum to 1."""
    truth = truth[name]
    if name != "y" or got is None or got.shape != truth.shape:
        return ""
    x = _matrix(params, inputs)
    bad = ~torch.isfinite(got).all(dim=1)
    limit = math.log(torch.finfo(torch.float32).max)
    if bad.any() and (x[bad].amax(dim=1) > limit).any():
        return kit.why_after_colon(
            "exp overflows to inf in float32 above about 88.7, and inf / inf is NaN: subtract the row's "
            "(running) maximum before exponentiating")
    if bad.any() and (x[bad].amax(dim=1) < -limit).any():
        return kit.why_after_colon(
            "exp underflows to 0 for every entry of a row this far below zero, and 0 / 0 is NaN: subtract "
            "the row's maximum, whatever its sign")
    sums = got.to(torch.float64).sum(dim=1)
    off = (~torch.isfinite(sums)) | ((sums - 1).abs() > 1e-3)
    if off.any():
        return kit.why_after_colon(
            f"{int(off.sum())} of the {got.shape[0]} rows of y do not sum to 1: reduce the maximum and the sum "
            "along each row (axis 1 of a 2-D tile), and when the running maximum grows, rescale the running "
            "sum by exp(old maximum - new maximum)")
    return ""
