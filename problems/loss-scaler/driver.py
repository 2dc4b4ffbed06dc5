"""SGD through the submission's LossScaler on a scripted loss; reports what it saw after each step."""
import torch


class ScriptedLoss(torch.autograd.Function):
    """sum(w * g), infs and NaNs in g counted as 0; the backward hands back g as it is, as an fp16 one would."""
    forward = staticmethod(lambda ctx, w, g: ctx.save_for_backward(g) or (w * g.nan_to_num(0.0, 0.0, 0.0)).sum())
    backward = staticmethod(lambda ctx, dloss: (dloss * ctx.saved_tensors[0], None))


def run(solution, params, inputs, ctx):
    ws = [torch.nn.Parameter(inputs[f"w{i}"].clone()) for i in range(len(params["shapes"]))]
    optimizer, out = torch.optim.SGD(ws, lr=params["lr"], momentum=0.9), {}
    scaler = solution.LossScaler(**params.get("options", {}))
    for t, event in enumerate(params["script"], 1):
        optimizer.zero_grad()
        scaled = scaler.scale(sum(ScriptedLoss.apply(w, inputs[f"g{i}@{t}"]) for i, w in enumerate(ws)))
        out[f"scale(loss) at step {t}"] = scaled.detach().clone()
        scaled.backward()
        out[f"step {t} taken"] = torch.tensor(int(bool(scaler.step(optimizer))), device=ctx.device)
        scaler.update()
        out[f"scale after step {t}"] = torch.tensor(float(scaler.get_scale()), dtype=torch.float64, device=ctx.device)
        for i, w in enumerate(ws):
            out[f"w{i} after step {t}"] = w.detach().clone()
            if event == "ok" and w.grad is not None:
                out[f"w{i}.grad after step {t}"] = w.grad.detach().clone()
    return out
