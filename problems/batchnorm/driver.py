"""In the sandbox: builds BatchNorm2d, copies the judge's tensors in by name, runs the steps and reports every
output, gradient and buffer after each; decides nothing."""
import torch

import kit

NAMES = ("weight", "bias", "running_mean", "running_var", "num_batches_tracked")


def refusal(model, x, _refusal=ValueError, _show=kit.show_exception):  # 0 returned, 1 ValueError, 2 another
    try:
        return int(model(x) is None and 0)
    except _refusal:
        return 1
    except Exception:  # noqa: BLE001 - which class it raised is the observation
        return _show() or 2


def run(solution, params, inputs, ctx, _read=kit.parameter_reader(), _leaf=kit.leaf, _module=torch.nn.Module):
    c, flag = params["shape"][1], lambda v: torch.tensor(int(v), device=ctx.device)
    cumulative = {"momentum": None} if params.get("cumulative") else {}
    model = solution.BatchNorm2d(c, **params.get("options", {}), **cumulative)
    found = _read(model) if isinstance(model, _module) else {}
    # Per tensor: 0 absent, 1 a learnable parameter, 2 not learnable (a buffer), 3 of another shape.
    codes = [0 if n not in found else 3 if found[n][0] != ((c,), ())[n == NAMES[4]] else 2 - found[n][1]
             for n in NAMES]
    out = {"tensors found": torch.tensor(codes, device=ctx.device)}
    if codes not in ([1, 1, 2, 2, 2], [0, 0, 2, 2, 2]):
        return out
    model.to(device=ctx.device, dtype=inputs["x@1"].dtype)
    tensors = {**dict(model.named_parameters()), **dict(model.named_buffers())}
    out.update({f"{name} when built": tensors[name].detach().clone() for name in NAMES if name in tensors})
    with torch.no_grad():
        [tensors[name].copy_(inputs["module." + name]) for name in NAMES[:4] if name in tensors]
    for t, mode in enumerate(params["steps"], 1):
        model.train(mode == "train")
        model.zero_grad(set_to_none=True)
        x, step = _leaf(inputs[f"x@{t}"]), f"step {t} ({mode})"
        if mode == "train" and x.numel() == c:  # one value per channel: nothing to take a variance of
            out[f"{step} refused"] = flag(refusal(model, x))
            break
        y = model(x)
        out[f"y from {step}"] = y.detach().clone()
        y.backward(inputs[f"dy@{t}"])
        grads = {"x": x, **{name: tensors[name] for name in NAMES[:2] if name in tensors}}
        out.update({f"{n}.grad from {step}": v.grad.detach().clone() for n, v in grads.items() if v.grad is not None})
        buffers = dict(model.named_buffers())  # read again: a buffer may have been assigned anew
        out.update({f"{name} after {step}": buffers[name].detach().clone() for name in NAMES[2:] if name in buffers})
    return out
