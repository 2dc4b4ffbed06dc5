"""Trusted: weights and micro-batches from a seed; each rank's window judged by its report (hostile: it can fail a
test, never pass one), then its .grad against the global batch's in float64, a wrong one named by its mistake."""
import torch
import torch.nn.functional as F

from runner import kit
from runner.kit import ranks


DECLARED = ranks.declared(__file__)
TRAINABLE = ("2.weight", "2.bias", "4.weight", "4.bias")  # driver.py's model; its first layer, 0, is frozen


def inputs(params, generator):
    p, m, b, d, h, o = (params[key] for key in ("world_size", "micro", "batch", "d_in", "d_hidden", "d_out"))
    shapes = {"0.weight": (h, d), "0.bias": (h,), "2.weight": (h, h), "2.bias": (h,), "4.weight": (o, h),
              "4.bias": (o,), "x": (p, m, b, d), "y": (p, m, b, o)}
    return {name: (torch.randn(shape, generator=generator, dtype=torch.float64) / shape[-1] ** 0.5).float()
            for name, shape in shapes.items()}


def gradient(inputs, keys):
    """{trainable name: the float64 gradient of the mean loss over these (rank, micro-batch) pairs' samples}."""
    w = {name: inputs[name].double().requires_grad_(name in TRAINABLE) for name in inputs if "." in name}
    x, y = (torch.stack([inputs[name][key] for key in keys]).double() for name in "xy")
    hidden = torch.tanh(F.linear(torch.tanh(F.linear(x, w["0.weight"], w["0.bias"])), w["2.weight"], w["2.bias"]))
    loss = F.mse_loss(F.linear(hidden, w["4.weight"], w["4.bias"]), y)
    return dict(zip(TRAINABLE, torch.autograd.grad(loss, [w[name] for name in TRAINABLE])))


def window_message(report, numel):
    for phase, words in (("early", "the window, before the last loss_fn call,"), ("window", "the window")):
        rule = DECLARED["phases"][phase]
        message = ranks.collectives_message(words, rule, report.phases[phase], {}, rule["only"])
        if message:
            return message
    moved = sum(entry[3] for entry in report.phases["window"] if ranks.family(entry[0].rsplit(".", 1)[0]))
    return None if moved == 4 * numel else DECLARED["fewer" if moved < 4 * numel else "more"].format(
        moved=moved if kit.reveals_values() else "another number of", bytes=4 * numel, numel=numel)


def mistake(inputs, p, m, rank, name, mine, truth):
    """" — <the classic mistake>" when mine, rank's wrong gradient of name, is what that mistake gives, else ""."""
    candidates = {"summed": p * truth, "undivided": m * truth, "world_twice": truth / p, "both_twice": truth / (m * p),
                  "last_only": gradient(inputs, [(r, m - 1) for r in range(p)])[name] / m,
                  "local": gradient(inputs, [(rank, k) for k in range(m)])[name]}
    return next((f" — {DECLARED['mistakes'][key].format(p=p, m=m)}" for key, wrong in candidates.items()
                 if ranks.matches(mine, wrong, DECLARED["relative_tolerance"])), "")


def check(params, inputs, got, expected):
    reports = ranks.read_reports(got, params, phases={"early", "window"}, given=set())
    if isinstance(reports, str):
        return reports
    p, m, b = params["world_size"], params["micro"], params["batch"]
    truth = gradient(inputs, [(r, k) for r in range(p) for k in range(m)])
    for rank in range(p):
        where = f"rank {rank} of {p}, {m} micro-batch{'es' * (m > 1)} of {b} sample{'s' * (b > 1)}"
        message = window_message(reports[rank], sum(value.numel() for value in truth.values()))
        for name in TRAINABLE if not message else ():
            mine = got[f"grad.{name}@{rank}"]
            message = ranks.close(f"{name}.grad", mine, truth[name], DECLARED["relative_tolerance"], torch.float32)
            if message:
                return f"{where}: {message}{mistake(inputs, p, m, rank, name, mine, truth[name])}"
        if message:
            return f"{where}: {message}"
    return None
