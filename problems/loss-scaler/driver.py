"""SGD through the submission's LossScaler on a scripted loss; reports what it saw after each step."""
import torch

# Reports of the first step at which step() left a gradient other than the one backward() made there, and at
# which get_scale() returned something other than a float (0: none); spec.check reads them.
GRAD, SCALE = "first step a .grad was replaced", "first step get_scale() was not a float"


class ScriptedLoss(torch.autograd.Function):
    """sum(w * g), infs and NaNs in g counted as 0; the backward hands back g as it is, as an fp16 one would."""
    forward = staticmethod(lambda ctx, w, g: ctx.save_for_backward(g) or (w * g.nan_to_num(0.0, 0.0, 0.0)).sum())
    backward = staticmethod(lambda ctx, dloss: (dloss * ctx.saved_tensors[0], None))


def run(solution, params, inputs, ctx):
    ws = [torch.nn.Parameter(inputs[f"w{i}"].clone()) for i in range(len(params["shapes"]))]
    optimizer, out = torch.optim.SGD(ws, lr=params["lr"], momentum=0.9), {}
    scaler, first = solution.LossScaler(**params.get("options", {})), {GRAD: 0, SCALE: 0}
    for t, event in enumerate(params["script"], 1):
        optimizer.zero_grad()
        scaled = scaler.scale(sum(ScriptedLoss.apply(w, inputs[f"g{i}@{t}"]) for i, w in enumerate(ws)))
        out[f"scale(loss) at step {t}"] = scaled.detach().clone()
        scaled.backward()
        left = [(w.grad, w.grad.data_ptr()) for w in ws]  # what backward() left, to be divided where it is
        out[f"step {t} taken"] = torch.tensor(int(bool(scaler.step(optimizer))), device=ctx.device)
        if event == "ok" and any(w.grad is not g or w.grad.data_ptr() != at for w, (g, at) in zip(ws, left)):
            first[GRAD] = first[GRAD] or t
        scaler.update()
        scale = scaler.get_scale()
        first[SCALE] = first[SCALE] or t * (not isinstance(scale, float))
        out[f"scale after step {t}"] = torch.tensor(float(scale), dtype=torch.float64, device=ctx.device)
        for i, w in enumerate(ws):
            out[f"w{i} after step {t}"] = w.detach().clone()
            if event == "ok" and w.grad is not None:
                out[f"w{i}.grad after step {t}"] = w.grad.detach().clone()
    out.update({name: torch.tensor(t, device=ctx.device) for name, t in first.items()})
    return out
