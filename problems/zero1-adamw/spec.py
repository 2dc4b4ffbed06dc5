"""Trusted: every rank's parameters after each step against AdamW in float64, its collectives and the bytes of its
state by problem.toml's [ranks] rules; AdamW's classic mistakes and an element no rank owns named."""
import math

import torch

from runner import kit

SAYS = kit.declared(__file__)["ranks"]["says"]


def inputs(params, generator):
    names = [[f"w{i}", *(f"g{i}@{t}" for t in range(1, params["steps"] + 1))] for i in range(len(params["shapes"]))]
    drawn = {name: torch.randn(shape, generator=generator, dtype=torch.float64).float()
             for shape, row in zip(params["shapes"], names) for name in row}
    return {name: x for name, x in drawn.items() if name not in {f"g{i}@{t}" for t, i in params.get("no_grad", [])}}


def adamw(params, inputs, mistake=None):  # {"w<i> after step <t>": float64}: torch.optim.AdamW's, or a mistake's
    lr, (b1, b2), eps, decay = (params[k] for k in ("lr", "betas", "eps", "weight_decay"))
    ws, out, shared = [inputs[f"w{i}"].double() for i in range(len(params["shapes"]))], {}, 0
    m, v, count, l2 = [0.0] * len(ws), [0.0] * len(ws), [0] * len(ws), mistake == "l2"
    for t in range(1, params["steps"] + 1):
        for i, w in enumerate(ws):
            if f"g{i}@{t}" in inputs:
                g, count[i], shared = inputs[f"g{i}@{t}"].double() + (decay * w if l2 else 0), count[i] + 1, shared + 1
                m[i], v[i], n = b1 * m[i] + (1 - b1) * g, b2 * v[i] + (1 - b2) * g * g, shared if mistake else count[i]
                c1, c2 = (1, 1) if mistake == "uncorrected" else (1 - b1 ** n, 1 - b2 ** n)
                ws[i] = w * (1 - (0 if l2 else lr * decay)) - lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps)
            out[f"w{i} after step {t}"] = ws[i]
    return out


truth = adamw


def steps(params):
    sizes = [math.prod(shape) for shape in params["shapes"]]
    counts = {"moved": sum(sizes) + (params["world_size"] - 1) * len(sizes), "numel": sum(sizes)}
    return [kit.RanksStep(f"after step {t}", {f"w{i} after step {t}": f"w{i}" for i in range(len(sizes))},
                          {f"step{t}": "step"}, counts) for t in range(1, params["steps"] + 1)]


def holdings(params, inputs, size):  # both moments of a 1/size share, of the largest parameter, and step counts
    sizes = [math.prod(shape) for shape in params["shapes"]]
    return 8 * sum(sizes) // size + 8 * max(sizes) + 8 * len(sizes)


def diagnose(name, rank, params, inputs, got, truth):  # elements that kept their values where the truth moved
    w, t = name.split(" after step ")[0], int(name.rpartition(" ")[2])
    value = got.get(f"{name}@{rank}")
    before, was = (inputs[w], inputs[w].double()) if t == 1 else (got[f"{w} after step {t - 1}@{rank}"],
                                                                 truth[f"{w} after step {t - 1}"])
    if value is not None and value.shape == before.shape and ((value == before) & (truth[name] != was)).any():
        return SAYS["unowned"].format(numel=inputs[w].numel(), world=params["world_size"])
    return ""
