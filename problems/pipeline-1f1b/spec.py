"""Trusted: each schedule, and the steps each stage was seen taking in a run, checked step by step and run here a
tick a step; each stage's gradients in float64."""
import torch

from runner import kit

DECLARED, REFERENCE = kit.declared(__file__)["ranks"], kit.load_sibling(__file__, "reference.py")
SAYS = DECLARED["says"]


def inputs(params, generator):  # weights of gain 1, so that tanh's gradients neither vanish nor saturate
    width, batch = params.get("width", 1), params.get("batch", 1)  # 1: a test of the schedules alone
    shapes = {"x": (batch, width), "target": (batch, width), **{
        f"{part}{r}": (width,) * (1 + (part == "w")) for r in range(params["world_size"]) for part in "wb"}}
    return {name: (torch.randn(*shape, generator=generator, dtype=torch.float64) /
                   (width ** 0.5 if name[0] == "w" else 1)).float() for name, shape in shapes.items()}


def gradients(params, inputs, last=False, undivided=False):  # of the mean loss (or its last micro-batch's share)
    if "width" not in params:  # a test of the schedules alone
        return {}
    p, m, shares = params["world_size"], params["micro_batches"], []
    weights = [inputs[f"{part}{rank}"].double().requires_grad_() for rank in range(p) for part in "wb"]
    for x, target in zip(inputs["x"].double().chunk(m), inputs["target"].double().chunk(m)):
        for rank in range(p):
            x = torch.tanh(x @ weights[2 * rank].T + weights[2 * rank + 1])
        shares.append(torch.autograd.grad((x - target).pow(2).mean() / m, weights))
    picked = [(m if undivided else 1) * sum(parts) for parts in zip(*(shares[-1:] if last else shares))]
    return {f"{name}.grad@{rank}": picked[2 * rank + j] for rank in range(p) for j, name in enumerate(("weight", "bias"))}


truth = gradients


def steps(params):  # from the last stage back: the first wrong gradient shows where the backward broke
    stages = reversed(range(params["world_size"])) if "width" in params else ()
    return [kit.RanksStep("", {f"{n}.grad@{s}": f"stage {s}'s {n}.grad" for s in stages for n in ("weight", "bias")})]


def diagnose(name, rank, params, inputs, got, truth):  # after the mistakes: a gradient missing, zero, or else
    value, later = got.get(f"{name}@{rank}"), "upstream" if rank < params["world_size"] - 1 else "last_stage"
    return kit.why_after_colon(
        SAYS["no_grad" if value is None else "no_gradient" if not value.any() else later].format(next=rank + 1))


def check(params, inputs, got, truth, reports):  # the schedules returned, or the steps a run was seen taking
    if "width" not in params:
        return next((f"one_f_one_b({p}, {m}): {message}" for j, (p, m) in enumerate(params["schedules"])
                     if (message := schedule_message(listed(got.get(f"schedule{j}@0"), p), p, m))), None)
    p, entering = params["world_size"], [inputs["x"].double().chunk(params["micro_batches"])]
    for r in range(p - 1):  # what enters each stage, micro-batch by micro-batch
        entering.append([torch.tanh(h @ inputs[f"w{r}"].double().T + inputs[f"b{r}"].double()) for h in entering[-1]])
    message = schedule_message([taken(got, s, entering[s]) for s in range(p)], p, params["micro_batches"])
    return message and f"{SAYS['observed']}: {message}"


def listed(table, p):  # one_f_one_b's lists as the driver encoded them; None when they are not p lists of steps
    if table is not None and table.dtype == torch.int64 and table.dim() == 3 and table.shape[::2] == (p, 2):
        return [[({0: "F", 1: "B"}.get(k, "?"), i) for k, i in row if [k, i] != [-1, -1]] for row in table.tolist()]


def taken(got, s, entering):  # a call is a forward once its backward reached weight; named by its input, else "?"
    events, calls, limit = got[f"steps@{s}"].tolist(), got[f"steps.inputs@{s}"].double(), max(
        h.abs().max().item() for h in entering) * DECLARED["relative_tolerance"]
    named = {k: next((i for i, h in enumerate(entering) if (calls[k] - h).abs().max() <= limit), "?")
             for kind, k in events if kind == 1 and 0 <= k < len(calls)}
    full = [("?", "?")] if events[-1][0] != -1 else []  # more than 4m + 4 calls and gradients
    return [("FB"[kind], named.get(k, "?")) for kind, k in events if kind == 1 or kind == 0 and k in named] + full


def schedule_message(rows, p, m):
    show = kit.reveals_values()  # name the offending step (sample tests only)
    if rows is None:
        return f"the result is not one list of steps for each of the {p} stages"
    at = lambda s, k: f"stage {s}'s step {k}, %s(%s)," % rows[s][k] if show else "a step"  # noqa: E731
    for s, row in enumerate(rows):
        if len(row) != 2 * m:
            taken_count = f"stage {s} takes {len(row)}" if show else "a stage takes a wrong number of"
            return rule_broken(taken_count, SAYS["count"])
        for k, (kind, i) in enumerate(row):
            held = sum((taken[0] == "F") - (taken[0] == "B") for taken in row[:k + 1])  # forward, not yet backward
            rule = "unknown" if kind == "?" or i not in range(m) else "twice" if (kind, i) in row[:k] else \
                "early" if kind == "B" and ("F", i) not in row[:k] else "peak" if held > p else None
            if rule:
                return rule_broken(at(s, k), SAYS[rule].format(p=p, m=m))
    done, position, ticks = set(), [0] * p, 0  # F(i) waits for F(i) on the stage before, B(i) for B(i) on the next
    needs = lambda s: (s - 1 + 2 * (rows[s][position[s]][0] == "B"), *rows[s][position[s]])  # noqa: E731
    while pending := [s for s in range(p) if position[s] < 2 * m]:
        ready = [s for s in pending if needs(s) in done or not 0 <= needs(s)[0] < p]
        if not ready:
            stuck = "; ".join(f"{at(s, position[s])[:-1]} waits for {'%s(%s)' % needs(s)[1:]} on stage {needs(s)[0]}"
                              for s in pending)
            return kit.with_why(f"the schedule deadlocks{f' ({stuck})' if show else ''}", SAYS["deadlock"])
        done.update((s, *rows[s][position[s]]) for s in ready)
        position, ticks = [position[s] + (s in ready) for s in range(p)], ticks + 1
    if ticks != 2 * (m + p - 1):
        ref = REFERENCE.one_f_one_b(p, m)
        s, k = next((s, k) for s in range(p) for k in range(2 * m) if rows[s][k] != ref[s][k])
        departs = f" (here {ticks - 2 * m}/{ticks}; {at(s, k)} where 1F1B takes {'%s(%s)' % ref[s][k]})"
        return kit.with_why(f"the stages sit idle longer than 1F1B's bubble, (p-1)/(m+p-1) = {p - 1}/{m + p - 1} of "
                            f"{2 * (m + p - 1)} ticks{departs if show else ''}", SAYS["bubble"])


def rule_broken(where, says):  # the problem's words for a broken rule: what the step does, then why (on request)
    done, _, why = says.partition(": ")
    return kit.with_why(f"{where} {done}", why)
