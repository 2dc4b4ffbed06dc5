"""triton-matmul's own code: its inputs, its truth, its traffic bounds, and its classic mistakes. The hooks
but `inputs` get a and b as the call does: a test's `views` taken (torch.as_strided of the drawn storage)."""

import torch

OPERANDS = ("a", "b")


def inputs(params, generator):
    """Standard normal float16 values: a M × K and b K × N, or, for an operand the test's `views` names, a 1-D
    storage just large enough for that view (its padding drawn too, so reading it shows)."""
    m, n, k = params["m"], params["n"], params["k"]
    drawn = {}
    for name, shape in (("a", (m, k)), ("b", (k, n))):
        view = params.get("views", {}).get(name)
        if view:
            shape = (view.get("offset", 0) + sum((s - 1) * t for s, t in zip(view["size"], view["stride"])) + 1,)
        drawn[name] = torch.randn(shape, generator=generator, dtype=torch.float64).to(torch.float16)
    return drawn


def truth(params, inputs):
    return {"c": inputs["a"].double() @ inputs["b"].double()}


def traffic(params, inputs):
    m, n, k = params["m"], params["n"], params["k"]
    strips = lambda size: -(-size // 32)  # noqa: E731 - ⌈size / 32⌉
    return {"load": (2 * k * (m * strips(n) + n * strips(m)),
                     "a's M × K float16 elements read once per 32-column strip of c and b's K × N once per 32-row "
                     "strip: 2 bytes × K × (M × ⌈N/32⌉ + N × ⌈M/32⌉), masked lanes not counted; tiles of at "
                     "least 32 × 32 stay within it"),
            "store": (4 * m * n, "c written once: M × N × 4 bytes")}


def describe(params, inputs):
    a, b = inputs["a"], inputs["b"]
    layouts = [f"{name} with strides {tuple(inputs[name].stride())}" for name in OPERANDS
               if name in params.get("views", {})]
    return (f"matmul(a, b) of a {a.shape[0]}×{a.shape[1]} and b {b.shape[0]}×{b.shape[1]}, float16"
            + (f" ({', '.join(layouts)})" if layouts else ""))


def _read(params, inputs, name, strides):
    """c with operand `name` read from its storage at these strides, or {} where they leave the storage."""
    view = inputs[name]
    storage = torch.as_strided(view, (view.untyped_storage().nbytes() // view.element_size(),), (1,), 0).double()
    if view.storage_offset() + sum((s - 1) * t for s, t in zip(view.shape, strides)) >= storage.numel():
        return {}
    read = torch.as_strided(storage, view.shape, strides, view.storage_offset())
    return {"c": read @ inputs["b"].double() if name == "a" else inputs["a"].double() @ read}


def as_contiguous(params, inputs, operand):
    """The operand read as if it were contiguous (row-major of its own shape), whatever its strides."""
    if inputs[operand].is_contiguous():
        return {}
    return _read(params, inputs, operand, (inputs[operand].shape[1], 1))


def swapped_strides(params, inputs, operand):
    """The operand's two strides passed in the wrong order."""
    return _read(params, inputs, operand, inputs[operand].stride()[::-1])


def diagnose(name, params, inputs, got, truth):
    """c holding only float16 numbers: rounded at the store, or accumulated in float16."""
    exact = truth.get(name)
    if got is None or exact is None or not torch.isfinite(got).all() or not torch.equal(got, got.half().to(got.dtype)):
        return ""
    if bool(((got.double() - exact.half().double()).abs() <= exact.abs() * 2.0 ** -10 + 2.0 ** -24).all()):
        return ("Every value of c is a float16 number within one float16 rounding of the truth: the float32 "
                "accumulator was rounded to float16 before the store; c is float32, store the accumulator as it is.")
    return ("Every value of c is a float16 number, further from the truth than one rounding: the products were "
            "accumulated in float16, which rounds at every step of the K loop, so the error grows with K; keep "
            "the accumulator in float32 (tl.zeros(..., dtype=tl.float32), then tl.dot(a, b, acc)).")
