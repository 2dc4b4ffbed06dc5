"""Trusted: the inputs, and every step against torch.nn.BatchNorm2d run in float64 through the same driver."""
import torch

from runner import kit

DRIVER = kit.load_sibling(__file__, "driver.py")

FOUND = ("absent", "a learnable parameter", "a buffer (not learnable)", "of another shape")
WANTED = {**dict.fromkeys(("weight", "bias"), "an nn.Parameter of shape (num_features,), or None when affine=False"),
          **dict.fromkeys(("running_mean", "running_var"), "a buffer of shape (num_features,) (self.register_buffer)"),
          "num_batches_tracked": "a 0-dim int64 buffer (self.register_buffer)"}


def inputs(params, generator):
    (n, c, h, w), dtype = params["shape"], getattr(torch, params["dtype"])
    draw = lambda *shape: torch.randn(*shape, generator=generator, dtype=torch.float64)  # noqa: E731
    drawn = {"module.running_mean": draw(c), "module.running_var": 0.5 + torch.rand(c, generator=generator),
             "module.weight": 1 + 0.5 * draw(c), "module.bias": 0.5 * draw(c)}  # copied in where the module has them
    for t in range(1, len(params["steps"]) + 1):  # each channel its own mean and standard deviation, exactly
        z, mean = draw(n, c, h, w), (params.get("offset", 0.0) + 2 * draw(c, 1, 1)).clamp(-1e4, 1e4)
        z = (z - z.mean((0, 2, 3), True)) / z.std((0, 2, 3), correction=0, keepdim=True) if n * h * w > 1 else z
        spread = params.get("spread", 1.0) * (1 + torch.rand(c, 1, 1, generator=generator, dtype=torch.float64))
        drawn.update({f"x@{t}": mean + spread * z, f"dy@{t}": draw(n, c, h, w)})
    return {name: tensor.to(dtype) for name, tensor in drawn.items()}


def truth(params, inputs):
    return kit.run_by_driver(__file__, torch.nn, params, inputs)  # torch.nn.BatchNorm2d


def as_drawn(params, inputs, solution):
    with torch.enable_grad():  # a mistake of precision: run on the inputs as drawn (in float64 it is none)
        return DRIVER.run(kit.load_sibling(__file__, solution), params, inputs, kit.trusted_context())


def describe(params, inputs):
    words = [f"{k}={v}" for k, v in params.get("options", {}).items()] + ["momentum=None"] * params.get("cumulative", 0)
    return (f"BatchNorm2d({', '.join([str(params['shape'][1]), *words])}) on {params['dtype']} x of shape "
            f"{tuple(params['shape'])}, steps {', '.join(params['steps'])}")


def diagnose(name, params, inputs, got, truth):
    if name == "tensors found" and got is not None and got.shape == truth[name].shape:
        return " ".join(f"{n} is {FOUND[g] if 0 <= g < 4 else '?'}: it must be {WANTED[n]}."
                        for n, g, w in zip(WANTED, got.tolist(), truth[name].tolist()) if g != w)
    if name.endswith("refused") and got is not None and got.shape == ():
        did = ("it returned", "it raised", "it raised another exception")[int(got)] if 0 <= got < 3 else "?"
        return (f"With one value per channel (N*H*W = 1) there is no batch variance to take: training-mode forward "
                f"must raise ValueError, as torch.nn.BatchNorm2d does ({did}).")
    return ""
