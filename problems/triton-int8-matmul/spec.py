"""triton-int8-matmul's own code: its inputs, its truth, its traffic bounds, and its classic mistakes. The hooks
but `inputs` get x, w_q and scale as the call does: a test's `views` taken (torch.as_strided of the storage)."""

import torch

DTYPES = {"float16": torch.float16, "float32": torch.float32}


def inputs(params, generator):
    """x standard normal in the test's dtype, w_q uniform over all of int8 (-128 to 127), and per-channel scales
    between 0.002 and 0.02, each channel its own. An operand the test's `views` names is drawn as a 1-D storage
    just large enough for that view (its padding drawn too, so reading it shows)."""
    m, n, k = params["m"], params["n"], params["k"]
    def shaped(name, shape):
        view = params.get("views", {}).get(name)
        return (view.get("offset", 0) + sum((s - 1) * t for s, t in zip(view["size"], view["stride"])) + 1,) \
            if view else shape
    x = torch.randn(shaped("x", (m, k)), generator=generator, dtype=torch.float64).to(DTYPES[params["dtype"]])
    w_q = torch.randint(-128, 128, shaped("w_q", (n, k)), generator=generator, dtype=torch.int8)
    scale = (0.002 + 0.018 * torch.rand(n, generator=generator, dtype=torch.float64)).to(torch.float32)
    return {"x": x, "w_q": w_q, "scale": scale}


def _linear(x, weight):
    return {"y": x.double() @ weight.double().T}


def truth(params, inputs):
    return _linear(inputs["x"], inputs["w_q"].double() * inputs["scale"].double()[:, None])


def traffic(params, inputs):
    m, n, k = params["m"], params["n"], params["k"]
    size = inputs["x"].element_size()
    strips = lambda length: -(-length // 32)  # noqa: E731 - ⌈length / 32⌉
    return {"load": (size * k * m * strips(n) + k * n * strips(m) + 4 * n * strips(m),
                     f"x's M × K elements ({size} bytes each) read once per 32 output channels, w_q's N × K int8 "
                     "elements (1 byte each) and the N float32 scales once per 32 rows of x: s × K × M × ⌈N/32⌉ + "
                     "K × N × ⌈M/32⌉ + 4 × N × ⌈M/32⌉, masked lanes not counted"),
            "store": (4 * m * n, "y written once: M × N × 4 bytes")}


def describe(params, inputs):
    x, w = inputs["x"], inputs["w_q"]
    layouts = [f"{name} with strides {tuple(inputs[name].stride())}" for name in ("x", "w_q")
               if name in params.get("views", {})]
    return (f"int8_linear(x, w_q, scale) with x {x.shape[0]}×{x.shape[1]} {params['dtype']} and w_q "
            f"{w.shape[0]}×{w.shape[1]} int8" + (f" ({', '.join(layouts)})" if layouts else ""))


def scale_by(params, inputs, axis):
    """The scales applied along the wrong axis: per row of x, or per input channel (column of w_q), where the
    axis has no more positions than there are scales (else the kernel reads past the end of scale)."""
    x, w, scale = inputs["x"].double(), inputs["w_q"].double(), inputs["scale"].double()
    if axis == "row" and x.shape[0] <= scale.numel():
        return {"y": scale[:x.shape[0], None] * (x @ w.T)}
    if axis == "input" and w.shape[1] <= scale.numel():
        return _linear(x, w * scale[None, :w.shape[1]])
    return {}


def as_contiguous(params, inputs, operand):
    """The operand read as if it were contiguous (row-major of its own shape), whatever its strides."""
    view = inputs[operand]
    if view.is_contiguous():
        return {}
    storage = torch.as_strided(view, (view.untyped_storage().nbytes() // view.element_size(),), (1,), 0)
    read = torch.as_strided(storage, view.shape, (view.shape[1], 1), view.storage_offset())
    x, w = (read, inputs["w_q"]) if operand == "x" else (inputs["x"], read)
    return _linear(x, w.double() * inputs["scale"].double()[:, None])


def unsigned(params, inputs):
    """w_q's bytes read as uint8: -1 becomes 255."""
    w = inputs["w_q"].double()
    return _linear(inputs["x"], torch.where(w < 0, w + 256, w) * inputs["scale"].double()[:, None])


def half_weights(params, inputs):
    """The dequantised weights rounded to float16 before the dot."""
    return _linear(inputs["x"], (inputs["w_q"].float() * inputs["scale"][:, None]).half())


def diagnose(name, params, inputs, got, truth):
    """y holding only float16 numbers: accumulated (or stored) in float16."""
    if got is None or not torch.isfinite(got).all() or not torch.equal(got, got.half().to(got.dtype)):
        return ""
    return ("Every value of y is a float16 number: the products were accumulated, or the result rounded, in "
            "float16, which keeps 11 significant bits; keep the accumulator in float32 "
            "(tl.zeros(..., dtype=tl.float32), then tl.dot(x, w, acc)) and store it as it is.")
