"""Steps the submission's AdamW on the judge's gradients; reports the norm, parameters and moments after each step."""
import torch


def run(solution, params, inputs, ctx):
    ws = [torch.nn.Parameter(inputs[f"w{i}"].clone()) for i in range(len(params["shapes"]))]
    options = {k: tuple(params[k]) if k == "betas" else params[k]
               for k in ("lr", "betas", "eps", "weight_decay", "max_grad_norm") if k in params}
    optimizer, out = solution.AdamW(ws, **options), {}
    for t in range(1, params["steps"] + 1):
        for i, w in enumerate(ws):
            w.grad = inputs[f"g{i}@{t}"].clone() if f"g{i}@{t}" in inputs else None
        norm = optimizer.step()
        out[f"norm from step {t}"] = norm.detach().clone() if isinstance(norm, torch.Tensor) else None
        for i, w in enumerate(ws):
            out[f"w{i} after step {t}"] = w.detach().clone()
            moments = getattr(optimizer, "state", {}).get(w)
            for key in ("exp_avg", "exp_avg_sq"):
                if isinstance(moments, dict) and isinstance(moments.get(key), torch.Tensor):
                    out[f"state[w{i}]['{key}'] after step {t}"] = moments[key].detach().clone()
    return {name: tensor for name, tensor in out.items() if tensor is not None}
