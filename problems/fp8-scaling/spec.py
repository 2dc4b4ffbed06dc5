"""Trusted: the script's tensors, the truth (the reference run on them as drawn, since every output is judged
exactly in float32 arithmetic), the classic mistakes run the same way, and the fp8 dtype's check."""
import math

import torch

from runner import kit

DRIVER = kit.load_sibling(__file__, "driver.py")
FP8 = "torch.float8_e4m3fn"
KNOWN = {str(dtype) for dtype in vars(torch).values() if isinstance(dtype, torch.dtype)}  # names torch chose


def inputs(params, generator):
    """Per step: randn * magnitude / 4 held below the magnitude (a power of two), one entry exactly +-it (the
    amax); all zeros for "zeros"; a unit one with one entry inf or -inf for "inf" and "-inf"."""
    shape, dtype, drawn = params["shape"], getattr(torch, params["dtype"]), {}
    for t, event in enumerate(params["script"], 1):
        magnitude = 1.0 if isinstance(event, str) else float(event)
        assert math.frexp(magnitude)[0] == 0.5, f"step {t}: the magnitude must be a power of two"
        x = (torch.randn(shape, generator=generator, dtype=torch.float64) * magnitude / 4).clamp(
            -magnitude * 0.999, magnitude * 0.999)
        at = int(torch.randint(x.numel(), (), generator=generator))
        sign = 1.0 if torch.rand((), generator=generator) < 0.5 else -1.0
        x.view(-1)[at] = {"inf": float("inf"), "-inf": float("-inf")}.get(event, sign * magnitude)
        drawn[f"x@{t}"] = (x * (event != "zeros")).to(dtype)
    return drawn


def truth(params, inputs):
    return as_drawn(params, inputs, "reference.py")


def as_drawn(params, inputs, solution):
    """A solution's outputs (the reference's, a classic mistake's), run here on the tensors as drawn."""
    copies = {name: tensor.clone() for name, tensor in inputs.items()}
    return DRIVER.run(kit.load_sibling(__file__, solution), params, copies, kit.trusted_context())


def describe(params, inputs):
    made = ", ".join(f"{key}={params[key]}" for key in ("history_len", "margin") if key in params) or \
        "defaults: history_len=1024, margin=0"
    shape = "×".join(str(size) for size in params["shape"])
    return f"DelayedScaler({made}) over {len(params['script'])} {params['dtype']} tensors of shape {shape}"


def diagnose(name, params, inputs, got, truth):
    """Why an fp8 output is wrong, where its values show it: NaN where the truth saturates, or values off the
    e4m3fn grid (a tensor returned before the cast)."""
    if not name.startswith("x_fp8") or got is None or got.shape != truth[name].shape or not got.is_floating_point():
        return ""
    if (got.isnan() & truth[name].abs().eq(448)).any():
        return kit.why_after_colon(
            "Some entries are NaN where x * scale is beyond 448 in magnitude: float8_e4m3fn has no inf, so "
            "saturate (clamp to [-448, 448]) before the cast.")
    if (got.float().nan_to_num() != got.float().nan_to_num().to(torch.float8_e4m3fn).float()).any():
        return kit.why_after_colon(
            "Some entries are not float8_e4m3fn values at all: return the tensor after "
            ".to(torch.float8_e4m3fn), not x * scale before it.")
    return ""


def check(params, inputs, got, truth):
    for t in range(1, len(params["script"]) + 1):
        dtype = kit.text(got.get(f"x_fp8 dtype at step {t}"), r"[A-Za-z0-9_.]*")
        if dtype is None:
            return f"x_fp8 at step {t}: {kit.MALFORMED}"
        if dtype != FP8:
            dtype = dtype if dtype in KNOWN or kit.reveals_values() else "another type"
            return (f"{describe(params, inputs)}: x_fp8 at step {t} has the right values but is {dtype}: "
                    f"cast() must return it as {FP8}, one byte per entry, which is what an FP8 GEMM reads.")
    return None
