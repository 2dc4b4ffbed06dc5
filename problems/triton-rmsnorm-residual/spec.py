"""triton-rmsnorm-residual's own code: inputs, the float64 truth and its classic variants, the traffic bounds."""

import torch

DTYPES = {"float32": torch.float32, "float16": torch.float16}
FLOAT16_MAX = 65504.0


def inputs(params, generator):
    """x, residual and weight; with `views`, an input is the storage the kit takes its view of."""
    m, n, dtype = params["m"], params["n"], DTYPES[params["dtype"]]
    scale = params.get("scale", 1.0)

    def draw(name, scale):
        view = params.get("views", {}).get(name)
        shape = [m, n] if view is None else \
            [view.get("offset", 0) + sum((size - 1) * stride for size, stride in zip(view["size"], view["stride"])) + 1]
        return (torch.randn(shape, generator=generator, dtype=torch.float64) * scale).to(dtype)
    x, residual = draw("x", scale), draw("residual", params.get("residual_scale", scale))
    weight = 1.0 + 0.5 * torch.randn(n, generator=generator, dtype=torch.float64)
    return {"x": x, "residual": residual, "weight": weight.to(dtype)}


def _rows(tensor, rows):
    """An input as the call gets it, or read as if its rows were contiguous (row r at r × n past its start)."""
    return (tensor.as_strided(tensor.shape, (tensor.shape[1], 1)) if rows == "contiguous" else tensor).double()


def normalised(params, inputs, order="add-then-norm", eps="inside", h="sum", rows="strided"):
    """The float64 truth, or a classic variant: x normalised before the residual is added, eps outside the
    square root, x stored as h, or the inputs read as if their rows were contiguous."""
    x, residual = _rows(inputs["x"], rows), _rows(inputs["residual"], rows)
    total = x + residual
    normed = x if order == "norm-then-add" else total
    mean_square = (normed * normed).mean(1, keepdim=True)
    rms = mean_square.sqrt() + params["eps"] if eps == "outside" else (mean_square + params["eps"]).sqrt()
    return {"y": normed / rms * inputs["weight"].double(), "h": x if h == "x" else total}


def truth(params, inputs):
    return normalised(params, inputs)


def traffic(params, inputs):
    m, n, size = params["m"], params["n"], inputs["x"].element_size()
    return {"load": (4 * m * n * size, "x and residual read once each, h read back at most once, weight once per "
                     f"row: (2 + 1 + 1) × m × n × {size} bytes"),
            "store": (2 * m * n * size, f"y and h stored once each: 2 × m × n × {size} bytes")}


def describe(params, inputs):
    call = (f"rmsnorm_residual(x, residual, weight, eps={params['eps']:g}) of {params['m']}×{params['n']} "
            f"{params['dtype']} rows")
    views = params.get("views", {})
    return call + "".join(f" ({name} a view of strides {tuple(view['stride'])})" for name, view in views.items())


def diagnose(name, params, inputs, got, truth):
    """Rows whose sum of h² passes float16's largest value, where y came out zero or not finite."""
    if name != "y" or params["dtype"] != "float16":
        return ""
    h = truth["h"]
    overflows = (h * h).sum(1) > FLOAT16_MAX
    lost = (~torch.isfinite(got) | (got == 0)).all(1)
    if not bool((overflows & lost).any()):
        return ""
    return ("In these rows the sum of h² passes 65504, float16's largest finite value, so a float16 sum is inf and "
            "rstd 0: convert h to float32 before squaring (the accumulator and tl.sum follow their input's dtype)")
