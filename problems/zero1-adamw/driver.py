"""On every rank, deciding nothing: ZeroAdamW stepped on the judge's gradients; its parameters, collectives, state."""
import gc

import torch

import kit_ranks


def run(solution, params, inputs, ctx, ranks=kit_ranks.observer(), storage=torch.Tensor.untyped_storage,
        freeze=gc.freeze, collect=gc.collect, objects=gc.get_objects, unfreeze=gc.unfreeze):
    ws = [torch.nn.Parameter(inputs[f"w{i}"].clone()) for i in range(len(params["shapes"]))]
    options = {k: tuple(params[k]) if k == "betas" else params[k] for k in ("lr", "betas", "eps", "weight_decay")}
    freeze()  # from here on, the collector's objects are those made since: by the optimizer, or here
    optimizer, observed, out = solution.ZeroAdamW(ws, **options), {**ranks.report(), "parameters": len(ws)}, {}
    for t in range(1, params["steps"] + 1):
        for i, w in enumerate(ws):  # as after DDP's backward: the averaged gradients, the same on every rank
            w.grad = inputs[f"g{i}@{t}"].clone() if f"g{i}@{t}" in inputs else None
        ranks.during(observed, f"step{t}", optimizer.step)
        out.update({f"w{i} after step {t}": ranks.plain(w) for i, w in enumerate(ws)})
        optimizer.zero_grad()
    collect()
    mine = {storage(x).data_ptr() for x in (*ws, *(w.grad for w in ws if w.grad is not None), *out.values())}
    made = {storage(x).data_ptr(): storage(x).nbytes() for x in objects() if issubclass(type(x), torch.Tensor)}
    unfreeze()
    return {**out, "observed": ranks.encoded(observed),
            "state bytes": torch.tensor([sum(size for at, size in made.items() if at not in mine)])}
