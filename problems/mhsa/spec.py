"""mhsa's own code: the weights and inputs, attention with each classic mistake as a keyword (problem.toml's
[[mistakes]] name them), and where a wrong output is wrong: which queries, and which heads through `out`."""

import math

import torch
import torch.nn.functional as F

DTYPES = {"float32": torch.float32, "float64": torch.float64}
# A query or head counts as wrong when its error is at least this share of the worst one's.
WRONG_SHARE = 0.01


def inputs(params, generator):
    d, shape = params["d_model"], (params["batch"], params["seq"], params["d_model"])
    dtype = DTYPES[params["dtype"]]

    def normal(*size, std):
        return (torch.randn(size, generator=generator, dtype=torch.float64) * std).to(dtype)

    drawn = {"module.qkv.weight": normal(3 * d, d, std=d ** -0.5), "module.qkv.bias": normal(3 * d, std=0.2),
             "module.out.weight": normal(d, d, std=d ** -0.5), "module.out.bias": normal(d, std=0.2),
             "x": normal(*shape, std=1.0)}
    if params["grad"]:
        drawn["dy"] = normal(*shape, std=1.0)
    return drawn


def attention(params, inputs, *, mask=None, fill=-math.inf, order="qkv", divide_by="sqrt(d_k)", softmax_dim=-1,
              split=True, merge=True):
    """{"y": the output, "heads": the concatenated heads before out}, in float64. The keywords' defaults are the
    interface; mask is one of "future", "past", "future and self", "none" (by default, causal's)."""
    w = {name.removeprefix("module."): inputs[name].to(torch.float64) for name in inputs if name.startswith("module.")}
    x = inputs["x"].to(torch.float64)
    (batch, seq, d), heads = x.shape, params["heads"]
    parts = dict(zip(order, F.linear(x, w["qkv.weight"], w["qkv.bias"]).split(d, dim=-1)))

    def to_heads(part):
        return part.unflatten(-1, (heads, -1)).transpose(1, 2) if split else part.reshape(batch, heads, seq, -1)

    q, k, v = (to_heads(parts[name]) for name in "qkv")
    scale = {"sqrt(d_k)": (d // heads) ** -0.5, "1": 1.0, "d_k": heads / d, "sqrt(d_model)": d ** -0.5}[divide_by]
    ones = torch.ones(seq, seq, dtype=torch.bool)
    blocked = {"future": ones.triu(1), "past": ones.tril(-1), "future and self": ones.triu(0), "none": ~ones}
    hidden = blocked[mask or ("future" if params["causal"] else "none")]
    scores = (q @ k.transpose(-2, -1) * scale).masked_fill(hidden, fill)
    per_head = scores.softmax(dim=softmax_dim) @ v
    merged = per_head.transpose(1, 2).reshape(batch, seq, d) if merge else per_head.reshape(batch, seq, d)
    return {"y": F.linear(merged, w["out.weight"], w["out.bias"]), "heads": merged}


def diagnose(name, params, inputs, got, truth):
    """Which queries of y are wrong and which heads, read through the inverse of out; or the query left no key."""
    if name != "y":
        return ""
    y = got.to(torch.float64)
    dead = (~torch.isfinite(y)).any(dim=-1).any(dim=0)
    if params["causal"] and dead.any():
        return (f"Query {int(dead.nonzero()[0])}'s output is not finite, as when the causal mask leaves it no key to "
                "see (a softmax over scores that are all -inf is 0/0): every query must see at least its own key.")
    error = (y - truth["y"]).abs().nan_to_num(nan=math.inf).amax(dim=(0, 2))
    where = f"Wrong at queries {spans((error >= WRONG_SHARE * error.max()).nonzero().flatten().tolist())}"
    inverse = torch.linalg.inv(inputs["module.out.weight"].to(torch.float64))
    heads = (y - inputs["module.out.bias"].to(torch.float64)) @ inverse.T - attention(params, inputs)["heads"]
    per_head = heads.abs().nan_to_num(nan=math.inf).unflatten(-1, (params["heads"], -1)).amax(dim=(0, 1, 3))
    wrong = (per_head >= WRONG_SHARE * per_head.max()).nonzero().flatten().tolist()
    if params["heads"] == 1:
        return f"{where}."
    which = "every head" if len(wrong) == params["heads"] else f"head{'s' * (len(wrong) > 1)} {spans(wrong)}"
    return f"{where}, in {which} (seen through the inverse of out)."


def spans(indices):
    """[0, 1, 2, 5] -> '0–2, 5'."""
    parts = []
    for index in indices:
        if parts and parts[-1][1] == index - 1:
            parts[-1][1] = index
        else:
            parts.append([index, index])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in parts)
