"""Trusted: each schedule checked step by step and run here a tick a step; each stage's gradients in float64."""
import torch

from runner import kit
from runner.kit import ranks


SAYS, REFERENCE = ranks.declared(__file__), kit.load_sibling(__file__, "reference.py")


def inputs(params, generator):  # weights of gain 1, so that tanh's gradients neither vanish nor saturate
    width, batch = params.get("width", 1), params.get("batch", 1)  # 1: a test of the schedules alone
    shapes = {"x": (batch, width), "target": (batch, width), **{
        f"{part}{r}": (width,) * (1 + (part == "w")) for r in range(params["world_size"]) for part in "wb"}}
    return {name: (torch.randn(*shape, generator=generator, dtype=torch.float64) /
                   (width ** 0.5 if name[0] == "w" else 1)).float() for name, shape in shapes.items()}


def check(params, inputs, got, expected):
    wrong = (f"one_f_one_b({p}, {m}): {message}" for j, (p, m) in enumerate(params.get("schedules", []))
             if (message := schedule_message(got.get(f"schedule{j}@0"), p, m, kit.reveals_values())))
    return next(wrong, None) or (gradients_message(params, inputs, got) if "width" in params else None)


def schedule_message(table, p, m, show):  # show: name the offending step (sample tests only)
    if table is None or table.dtype != torch.int64 or table.dim() != 3 or table.shape[::2] != (p, 2):
        return f"the result is not one list of steps for each of the {p} stages"
    rows = [[({0: "F", 1: "B"}.get(k, "?"), i) for k, i in row if [k, i] != [-1, -1]] for row in table.tolist()]
    ref = REFERENCE.one_f_one_b(p, m)
    at = lambda s, k: f"stage {s}'s step {k}, %s(%s)," % rows[s][k] if show else "a step"  # noqa: E731
    for s, row in enumerate(rows):
        if len(row) != 2 * m:
            return f"{f'stage {s} takes {len(row)}' if show else 'a stage takes a wrong number of'} {SAYS['count']}"
        for k, (kind, i) in enumerate(row):
            held = sum((taken[0] == "F") - (taken[0] == "B") for taken in row[:k + 1])  # forward, not yet backward
            rule = "unknown" if kind == "?" or not 0 <= i < m else "twice" if (kind, i) in row[:k] else \
                "early" if kind == "B" and ("F", i) not in row[:k] else "peak" if held > p else None
            if rule:
                return f"{at(s, k)} {SAYS[rule].format(p=p, m=m)}"
    done, position, ticks = set(), [0] * p, 0  # F(i) waits for F(i) on the stage before, B(i) for B(i) on the next
    needs = lambda s: (s - 1 + 2 * (rows[s][position[s]][0] == "B"), *rows[s][position[s]])  # noqa: E731
    while pending := [s for s in range(p) if position[s] < 2 * m]:
        ready = [s for s in pending if needs(s) in done or not 0 <= needs(s)[0] < p]
        if not ready:
            stuck = "; ".join(f"{at(s, position[s])[:-1]} waits for {'%s(%s)' % needs(s)[1:]} on stage {needs(s)[0]}"
                              for s in pending)
            return f"the schedule deadlocks{f' ({stuck})' if show else ''}: {SAYS['deadlock']}"
        done.update((s, *rows[s][position[s]]) for s in ready)
        position, ticks = [position[s] + (s in ready) for s in range(p)], ticks + 1
    if ticks != 2 * (m + p - 1):
        s, k = next((s, k) for s in range(p) for k in range(2 * m) if rows[s][k] != ref[s][k])
        departs = f" (here {ticks - 2 * m}/{ticks}; {at(s, k)} where 1F1B takes {'%s(%s)' % ref[s][k]})"
        return (f"the stages sit idle longer than 1F1B's bubble, (p-1)/(m+p-1) = {p - 1}/{m + p - 1} of "
                f"{2 * (m + p - 1)} ticks{departs if show else ''}: {SAYS['bubble']}")


def gradients_message(params, inputs, got):  # from the last stage back: the first wrong one shows where it broke
    p, m, relative = params["world_size"], params["micro_batches"], SAYS["relative_tolerance"]
    weights = [inputs[f"{part}{rank}"].double().requires_grad_() for rank in range(p) for part in "wb"]
    per = []  # each micro-batch's share of the mean loss's gradients
    for x, target in zip(inputs["x"].double().chunk(m), inputs["target"].double().chunk(m)):
        for rank in range(p):
            x = torch.tanh(x @ weights[2 * rank].T + weights[2 * rank + 1])
        per.append(torch.autograd.grad((x - target).pow(2).mean() / m, weights))
    for rank in reversed(range(p)):
        for j, name in enumerate(("weight", "bias")):
            value, truth, last = got.get(f"{name}.grad@{rank}"), sum(g[2*rank + j] for g in per), per[-1][2*rank + j]
            message = ranks.close(f"rank {rank}: stage {rank}'s {name}.grad", value, truth, relative, torch.float32)
            if message:
                known = dict(undivided=m * truth, last_only=last, last_only_undivided=m * last, no_gradient=0 * truth)
                said = "no_grad" if value is None else next((key for key, wrong in known.items() if ranks.matches(
                    value, wrong, relative)), "upstream" if rank < p - 1 else "last_stage")
                return f"{message} — {SAYS[said].format(m=m, next=rank + 1)}"
    return None
