"""On every rank, deciding nothing: ZeroAdamW stepped on the judge's gradients; its parameters, collectives, state."""
import torch

import kit_ranks


def run(solution, params, inputs, ctx, ranks=kit_ranks.observer()):
    ws = [torch.nn.Parameter(inputs[f"w{i}"].clone()) for i in range(len(params["shapes"]))]
    options = {k: tuple(params[k]) if k == "betas" else params[k] for k in ("lr", "betas", "eps", "weight_decay")}
    ranks.storages_from_now()  # what the optimizer makes from here on, and keeps, is its state
    optimizer, observed, out = solution.ZeroAdamW(ws, **options), ranks.report(), {}
    for t in range(1, params["steps"] + 1):
        for i, w in enumerate(ws):  # as after DDP's backward: the averaged gradients, the same on every rank
            w.grad = inputs[f"g{i}@{t}"].clone() if f"g{i}@{t}" in inputs else None
        ranks.during(observed, f"step{t}", optimizer.step)
        out.update({f"w{i} after step {t}": ranks.plain(w) for i, w in enumerate(ws)})
        optimizer.zero_grad()
    ranks.kept(observed, [*ws, *(w.grad for w in ws if w.grad is not None), *out.values()])
    return {**out, "observed": ranks.encoded(observed)}
