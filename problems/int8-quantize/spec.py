"""Trusted: weights at least MARGIN from rounding ties (or exactly on them), the truth in float64 arithmetic with
the exact float32 scales; problem.toml's [outputs] says how each output is judged."""
import torch

from runner import kit

MARGIN = 1e-3
DRIVER = kit.load_sibling(__file__, "driver.py")


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


def truth(params, inputs):
    (t, scales, q), codes, gs = exact(params, inputs["w"]), inputs["codes_to_dequantize"].long(), params["group_size"]
    codes = (torch.stack([codes & 15, codes >> 4], -1).flatten(-2) ^ 8) - 8 if q == 7 else codes
    given = codes.double().unflatten(-1, (-1, gs)) * inputs["scales_to_dequantize"].double()[..., None]
    return {"codes": pack(t.round().flatten(-2), q), "scales": scales.squeeze(-1), "w_hat": given.flatten(-2),
            "round trip": inputs["w"].double()}


def judged(params, inputs, reports):
    """The round trip in steps of the exact scale of each group (where it has w's shape)."""
    trip, (_, scales, _) = reports.pop("round trip", None), exact(params, inputs["w"])
    if trip is not None and trip.shape == inputs["w"].shape:
        trip = (trip.double().unflatten(-1, (-1, params["group_size"])) / scales.double()).nan_to_num(0.0, 0.0, 0.0)
        trip = trip.flatten(-2)
    return reports if trip is None else {**reports, "round trip (in steps of the scale)": trip}


def describe(params, inputs):
    return f"quantize(w, group_size={params['group_size']}, bits={params.get('bits', 8)}) of {params['dtype']} w"


def as_drawn(params, inputs, solution):
    """A mistake of precision: the solution run on the weights as drawn, where in float64 it would be none."""
    return DRIVER.run(kit.load_sibling(__file__, solution), params, inputs, kit.trusted_context())
