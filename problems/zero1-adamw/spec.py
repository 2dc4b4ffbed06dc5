"""Trusted: every rank's parameters after each step against AdamW in float64; collectives and state bytes as reported."""
import torch

from runner import kit
from runner.kit import ranks


SAYS, TOLERANCE = (DECLARED := ranks.declared(__file__))["says"], DECLARED["relative_tolerance"]


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


def check(params, inputs, got, expected):
    world, steps, sizes = params["world_size"], params["steps"], [x.numel() for n, x in inputs.items() if "@" not in n]
    reports = ranks.read_reports(got, params, phases={f"step{t}" for t in range(1, steps + 1)}, given=set())
    if isinstance(reports, str):
        return reports
    truth, facts = adamw(params, inputs), {"world": world, "steps": steps, "numel": sum(sizes), "moved": sum(sizes) + (
        world - 1) * len(sizes), "held": 8 * sum(sizes) // world + 8 * max(sizes) + 8 * len(sizes)}
    for t in range(1, steps + 1):
        for i in range(len(sizes)):
            if message := parameter(params, inputs, got, truth, f"w{i}", t, world):
                return f"after step {t}, {message}"
        for rank, report in reports.items():
            seen = report.phases[f"step{t}"]
            moved = sum(size for operator, _, size, _ in seen if ranks.family(operator.rsplit(".", 1)[0]))
            if message := ranks.collectives_message(f"step {t}", DECLARED["phases"]["step"], seen, {}, SAYS[
                    "only"]) or (moved > facts["moved"] and SAYS["moved"].format(t=t, **facts)):
                return f"rank {rank} of {world}: {message}"
    for rank in range(world):
        held = got.get(f"state bytes@{rank}")
        if held is None or held.dtype != torch.int64 or held.shape != (1,) or not 0 <= held.item() <= facts["held"]:
            return f"rank {rank} of {world}: {SAYS['memory'].format(**facts)}"


def parameter(params, inputs, got, truth, w, t, world):  # why w after step t is wrong on some rank, or None
    name, values = f"{w} after step {t}", [got.get(f"{w} after step {t}@{rank}") for rank in range(world)]
    for rank, value in enumerate(values):
        if message := kit.layout(w, value, inputs[w]) or (
                not torch.equal(value, values[0]) and SAYS["unsynced"].format(i=w[1:])):
            return f"rank {rank} of {world}: {message}"
    if not (message := ranks.close(w, values[0], truth[name], TOLERANCE, torch.float32)):
        return None
    before, was = (inputs[w], inputs[w].double()) if t == 1 else (got[f"{w} after step {t - 1}@0"],
                                                                 truth[f"{w} after step {t - 1}"])
    if ((values[0] == before) & (truth[name] != was)).any():
        return f"on every rank: {message} — {SAYS['unowned'].format(numel=inputs[w].numel(), world=world)}"
    return f"on every rank: {message}" + next((f" — {says}" for mistake, says in DECLARED["mistakes"].items() if
                                              ranks.matches(values[0], adamw(params, inputs, mistake)[name], TOLERANCE)), "")
