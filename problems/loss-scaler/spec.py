"""Trusted: the script's gradients; the kit judges every step against the reference in float64."""
import torch


def inputs(params, generator):
    dtype, shapes = getattr(torch, params["dtype"]), params["shapes"]
    drawn = {f"w{i}": torch.randn(s, generator=generator, dtype=torch.float64).to(dtype) for i, s in enumerate(shapes)}
    for t, event in enumerate(params["script"], 1):
        gs = [torch.randn(shape, generator=generator, dtype=torch.float64) for shape in shapes]
        i = int(torch.randint(len(gs), (), generator=generator))
        at = int(torch.randint(gs[i].numel(), (), generator=generator))
        if event != "ok":  # "inf", "-inf" or "nan"
            gs[i].view(-1)[at] = float(event)
        drawn.update({f"g{i}@{t}": g.to(dtype) for i, g in enumerate(gs)})
    return drawn
