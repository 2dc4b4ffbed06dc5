"""Trusted: the float64 truth of the three functions, and the call in the user's words; no inputs are drawn."""
import math

import torch


def inputs(params, generator):
    return {}


def truth(params, inputs):
    d, offset, n = params["d_model"], params.get("offset", 0), params["n_heads"]
    position = torch.arange(offset, offset + params["seq_len"], dtype=torch.float64)[:, None]
    column = torch.arange(d, dtype=torch.float64)
    angles = position * 10000.0 ** (-(column - column % 2) / d)  # columns 2i and 2i + 1 share 10000^(-2i/d)
    pe = torch.where(column % 2 == 0, angles.sin(), angles.cos())
    closest = 2 ** int(math.floor(math.log2(n)))
    slopes = [2.0 ** (-8.0 * k / closest) for k in range(1, closest + 1)] + \
        [2.0 ** (-8.0 * k / (2 * closest)) for k in range(1, 2 * closest, 2)][: n - closest]
    slopes = torch.tensor(slopes, dtype=torch.float64)
    query = torch.arange(params["t_k"] - params["t_q"], params["t_k"], dtype=torch.float64)[:, None]
    distance = query - torch.arange(params["t_k"], dtype=torch.float64)[None, :]
    bias = (-slopes[:, None, None] * distance).masked_fill(distance < 0, -math.inf)
    return {"pe": pe, "slopes": slopes, "bias": bias}


def describe(params, inputs):
    offset = f", offset={params['offset']}" if "offset" in params else ""
    return (f"sinusoidal_encoding({params['seq_len']}, {params['d_model']}{offset}), "
            f"alibi_slopes({params['n_heads']}) and alibi_bias({params['n_heads']}, {params['t_q']}, "
            f"{params['t_k']}) in {params['dtype']}")


def call_of(name, params, inputs):
    return {"pe": "pe[t, c] is position offset + t, column c",
            "slopes": "slopes[h] is head h's slope",
            "bias": f"bias[h, i, j] is head h, query i (at position {params['t_k']} - {params['t_q']} + i), key j"}[name]
