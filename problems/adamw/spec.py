"""Trusted: the inputs, and every step against torch.optim.AdamW behind clip_grad_norm_ in float64."""
from types import SimpleNamespace

import torch
import torch._dynamo  # noqa: F401 - torch.optim's first step imports it: here, before any run's clock starts

from runner import kit


class TorchAdamW(torch.optim.AdamW):
    def __init__(self, params, max_grad_norm=float("inf"), **options):
        super().__init__(params, foreach=False, **options)
        self.max_grad_norm = max_grad_norm

    def step(self):
        norm = torch.nn.utils.clip_grad_norm_(self.param_groups[0]["params"], self.max_grad_norm)  # skips None grads
        return super().step() or norm


def inputs(params, generator):
    dtype, drawn = getattr(torch, params["dtype"]), {}
    for i, shape in enumerate(params["shapes"]):
        drawn[f"w{i}"] = torch.randn(shape, generator=generator, dtype=torch.float64).to(dtype)
        for t in range(1, params["steps"] + 1):
            g = torch.randn(shape, generator=generator, dtype=torch.float64) * params.get("grad_scale", 1.0)
            if [t, i] not in params.get("no_grad", []):
                drawn[f"g{i}@{t}"] = g.to(dtype)
    return drawn


def truth(params, inputs):
    return kit.run_by_driver(__file__, SimpleNamespace(AdamW=TorchAdamW), params, inputs)


def describe(params, inputs):
    return f"{params['steps']} steps of AdamW"


def diagnose(name, params, inputs, got, truth):
    return "step() returns the norm as a tensor; state[p] holds 'exp_avg' and 'exp_avg_sq'." if got is None else ""
