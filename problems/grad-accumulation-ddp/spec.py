"""Trusted: weights and micro-batches from a seed; each rank's .grad against the global batch's in float64, a wrong
one named by its mistake; the window's collectives by problem.toml's [ranks] rules."""
import torch
import torch.nn.functional as F

from runner import kit

SAYS = kit.declared(__file__)["ranks"]["says"]
TRAINABLE = ("2.weight", "2.bias", "4.weight", "4.bias")  # driver.py's model; its first layer, 0, is frozen


def inputs(params, generator):
    p, m, b, d, h, o = (params[key] for key in ("world_size", "micro", "batch", "d_in", "d_hidden", "d_out"))
    shapes = {"0.weight": (h, d), "0.bias": (h,), "2.weight": (h, h), "2.bias": (h,), "4.weight": (o, h),
              "4.bias": (o,), "x": (p, m, b, d), "y": (p, m, b, o)}
    return {name: (torch.randn(shape, generator=generator, dtype=torch.float64) / shape[-1] ** 0.5).float()
            for name, shape in shapes.items()}


def gradient(inputs, keys):
    """{grad.<trainable name>: the float64 gradient of the mean loss over these (rank, micro-batch) pairs' samples}."""
    w = {name: inputs[name].double().requires_grad_(name in TRAINABLE) for name in inputs if "." in name}
    x, y = (torch.stack([inputs[name][key] for key in keys]).double() for name in "xy")
    hidden = torch.tanh(F.linear(torch.tanh(F.linear(x, w["0.weight"], w["0.bias"])), w["2.weight"], w["2.bias"]))
    loss = F.mse_loss(F.linear(hidden, w["4.weight"], w["4.bias"]), y)
    return dict(zip((f"grad.{name}" for name in TRAINABLE), torch.autograd.grad(loss, [w[n] for n in TRAINABLE])))


def truth(params, inputs):
    return gradient(inputs, [(r, k) for r in range(params["world_size"]) for k in range(params["micro"])])


def steps(params):
    m, b, h, o = params["micro"], params["batch"], params["d_hidden"], params["d_out"]
    numel = (h + 1) * (h + o)
    return [kit.RanksStep(f"{m} micro-batch{'es' * (m > 1)} of {b} sample{'s' * (b > 1)}",
                          {f"grad.{name}": f"{name}.grad" for name in TRAINABLE},
                          {"early": "early", "window": "window"}, {"gradients": 4 * numel, "numel": numel})]


def mistakes(params, inputs):
    p, m, right = params["world_size"], params["micro"], truth(params, inputs)
    for key, factor in (("summed", p), ("undivided", m), ("world_twice", 1 / p), ("both_twice", 1 / (m * p))):
        yield SAYS[key], {name: factor * value for name, value in right.items()}
    last = gradient(inputs, [(r, m - 1) for r in range(p)])
    yield SAYS["last_only"], {name: value / m for name, value in last.items()}
    # One group of every rank: a rank's position in it is the rank.
    yield SAYS["local"], kit.by_rank(params, lambda index, group, at: gradient(inputs, [(at, k) for k in range(m)]))
