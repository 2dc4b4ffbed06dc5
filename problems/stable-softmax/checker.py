"""Trusted checker: inputs from a seed, and comparison against an exact float64 softmax.

The tolerance is backward-error based: an algorithm is accepted when its error is within a few rounding
units of the largest input magnitude (the inputs themselves carry that much uncertainty), or within a few
times the reference's own error, whichever is larger. A naive exp overflows at magnitude 1e4 and fails.
"""

import torch

from runner import compare

DTYPES = {"float32": torch.float32, "float64": torch.float64}


def inputs(params, generator):
    shape = list(params["shape"])
    stored = [shape[1], shape[0], *shape[2:]] if params.get("layout") == "transposed" else shape
    x = torch.randn(stored, generator=generator, dtype=torch.float64) * params.get("scale", 3.0)
    x = x + params.get("offset", 0.0)
    grad = torch.randn(shape, generator=generator, dtype=torch.float64)
    dtype = DTYPES[params["dtype"]]
    return {"x": x.to(dtype), "grad": grad.to(dtype)}


def exact(params, x, grad):
    """softmax and its input gradient in float64."""
    if params.get("layout") == "transposed":
        x = x.t()
    x64, grad64 = x.to(torch.float64), grad.to(torch.float64)
    dim = params["dim"]
    shifted = x64 - x64.amax(dim, keepdim=True)
    y = shifted.exp() / shifted.exp().sum(dim, keepdim=True)
    return y, y * (grad64 - (grad64 * y).sum(dim, keepdim=True))


def check(params, inputs, got, expected):
    """None if got is right, else a message saying what is wrong, in terms of the call."""
    shape = "×".join(map(str, params["shape"]))
    call = f"softmax(x, dim={params['dim']}) of a {shape} {params['dtype']} tensor"
    for name in ("y", "grad"):
        mismatch = compare.layout("the output" if name == "y" else "x.grad", got.get(name), expected[name])
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
        hint = ""
        if "non-finite" in message and params.get("scale", 0) >= 1e3:
            hint = (f" — exp overflows for inputs of magnitude {params['scale']:g}: subtract the maximum "
                    "along dim before exponentiating")
        return f"{call}: {message}{hint}"
    message = compare.tensors("x.grad", got["grad"].to(torch.float64), dx, atol=atol_dx, rtol=0)
    if message:
        return f"{call}, gradient with respect to x: {message}"
    return None
