"""Trusted: the script's gradients; the kit judges every step against the reference in float64; then the
driver's reports of what step() did to each .grad and of what get_scale() returned."""
import torch

from runner import kit

DRIVER = kit.load_sibling(__file__, "driver.py")
LESSONS = {DRIVER.GRAD: "after step() at step {t}, a parameter's .grad is no longer the tensor backward() left "
           "there: step() must divide the gradients in place, since whatever else holds a gradient (a hook, DDP's "
           "bucket views, a fused optimizer's flat buffer) would keep the scaled values, and a copy of every "
           "gradient costs their memory a second time",
           DRIVER.SCALE: "at step {t}, get_scale() returned something other than a Python float: a training loop "
           "logs it, compares it and does arithmetic with it as a number (a tensor on the GPU would also make "
           "each read wait for the device)"}


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


def check(params, inputs, got, truth):
    for name, lesson in LESSONS.items():
        t = kit.scalar(got.get(name), torch.int64)
        if t is None or not 0 <= t <= len(params["script"]):
            return f"the driver's report '{name}' is missing or malformed (was the driver changed?)"
        if t:
            return lesson.format(t=t)
    return None
