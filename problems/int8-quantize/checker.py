"""Trusted: weights at least MARGIN from rounding ties (or exactly on them), against float64 arithmetic."""
import tomllib
from pathlib import Path

import torch

from runner import kit


MARGIN = 1e-3
MISTAKES = tomllib.loads((Path(__file__).parent / "problem.toml").read_text())["mistakes"]


def exact(params, w):
    q = 2 ** (params.get("bits", 8) - 1) - 1
    groups = w.float().unflatten(-1, (-1, params["group_size"]))
    scales = groups.abs().amax(-1, keepdim=True) / q
    return (groups.double() / scales.double()).nan_to_num(0.0), scales, q


def pack(codes, q):
    nibbles = codes.long() & 15
    return (nibbles[..., 0::2] | nibbles[..., 1::2] << 4).to(torch.uint8) if q == 7 else codes.to(torch.int8)


def inputs(params, generator):
    shape, gs, ties, size = params["shape"], params["group_size"], params.get("ties", False), params.get("scale", 1.0)
    q, scales_shape = exact(params, torch.ones(gs))[2], shape[:-1] + [shape[-1] // gs]
    w = torch.randn(shape, generator=generator, dtype=torch.float64) * size
    if ties:  # (k + 1/2) / 8, each group's first entry +-q / 8: every scale is 1/8, every w / scale a tie
        w = (torch.randint(-q, q, shape, generator=generator) + 0.5) / 8
    groups = w.unflatten(-1, (-1, gs))
    groups[..., 0] = q / 8 * torch.randn(scales_shape, generator=generator).sign() if ties else groups[..., 0]
    groups[..., ::3, :] *= not params.get("zero_groups")
    w = w.to(getattr(torch, params["dtype"]))
    t, scales, _ = exact(params, w)
    near = (((t.abs() % 1 - 0.5).abs() < MARGIN) & (not ties)).flatten(-2)  # moved to a code, toward 0
    w = torch.where(near, (t.trunc() * scales).flatten(-2).to(w.dtype), w)
    codes = pack(torch.randint(-q, q + 1, shape, generator=generator), q)
    return {"w": w, "codes_to_dequantize": codes,
            "scales_to_dequantize": (torch.rand(scales_shape, generator=generator) + 0.5) * size / q}


def check(params, inputs, got, expected):
    call = f"quantize(w, group_size={params['group_size']}, bits={params.get('bits', 8)}) of {params['dtype']} w"
    (t, scales, q), codes, gs = exact(params, inputs["w"]), inputs["codes_to_dequantize"].long(), params["group_size"]
    codes = (torch.stack([codes & 15, codes >> 4], -1).flatten(-2) ^ 8) - 8 if q == 7 else codes
    given = codes.double().unflatten(-1, (-1, gs)) * inputs["scales_to_dequantize"].double()[..., None]
    in_steps = lambda x: (x.double().unflatten(-1, (-1, gs)) / scales.double()).nan_to_num(0.0, 0.0, 0.0).flatten(-2)
    truth = {"codes": pack(t.round().flatten(-2), q), "scales": scales.squeeze(-1), "w_hat": given.flatten(-2),
             "round trip": in_steps(inputs["w"])}
    for name, atol, rtol in (("codes", 0, 0), ("scales", 1e-30, 2 ** -21), ("w_hat", 1e-30, 2 ** -21),
                             ("round trip", 0.5 + MARGIN, 0)):
        value = in_steps if name == "round trip" else torch.Tensor.double
        message = kit.layout(name, got.get(name), expected[name]) or kit.compare_tensors(
            f"{name} (in steps of the scale)" if name == "round trip" else name, value(got[name]),
            truth[name].double(), atol=atol, rtol=rtol)
        if message:
            return f"{call}: {message}{diagnosis(name, params, inputs, got)}"
    return None


def diagnosis(name, params, inputs, got):
    for mistake in MISTAKES:
        module, args = kit.load_sibling(__file__, mistake["solution"]), (params["group_size"], params.get("bits", 8))
        try:
            mine = dict(zip(("codes", "scales"), module.quantize(inputs["w"], *args)))
            mine["w_hat"] = module.dequantize(inputs["codes_to_dequantize"], inputs["scales_to_dequantize"], *args)
            if torch.equal(mine[name], got[name]):
                return f". This is exactly what {mistake['says']}."
        except Exception:  # noqa: BLE001 - a mistake that cannot run on these inputs is not this one
            continue
    return ""
