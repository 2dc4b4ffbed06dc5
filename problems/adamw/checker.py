"""Trusted: every step against torch.optim.AdamW behind clip_grad_norm_ in float64, mistakes named by [[mistakes]]."""
import tomllib
from pathlib import Path
from types import SimpleNamespace

import torch
import torch._dynamo  # noqa: F401 - torch.optim's first step imports it: here, before any run's clock starts

from runner import kit
from runner.kit.standard import load_module, run_in_float64

HERE = Path(__file__).parent
driver = load_module(HERE / "driver.py", "judge_adamw_driver")
MISTAKES = [(load_module(HERE / m["solution"], f"judge_adamw_mistake_{i}"), m["says"])
            for i, m in enumerate(tomllib.loads((HERE / "problem.toml").read_text())["mistakes"])]


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


def check(params, inputs, got, expected):
    truth = run_in_float64(driver.run, SimpleNamespace(AdamW=TorchAdamW), params, inputs)
    for name in expected:
        message = kit.check_close(name, got.get(name), expected[name], truth[name])
        if message:
            return f"{params['steps']} steps of AdamW: {message}.{mistake(name, params, inputs, got, expected, truth)}"


def mistake(name, params, inputs, got, expected, truth):
    if got.get(name) is None or got[name].shape != truth[name].shape:
        return "" if name in got else " step() returns the norm as a tensor; state[p] holds 'exp_avg' and 'exp_avg_sq'."
    allowed, mine, right = kit.tolerance(got[name].dtype, expected[name], truth[name]), got[name].double(), truth[name]
    close = max(4 * allowed, 0.01 * (mine - right).abs().nan_to_num(0.0, 0.0).max().item())
    for solution, says in MISTAKES:
        try:
            candidate = run_in_float64(driver.run, solution, params, inputs)[name]
            if not candidate.allclose(right, 0, allowed, True) and mine.allclose(candidate, 0, close, True):
                return f" This is exactly what {says}."
        except Exception:  # noqa: BLE001 - a mistake that cannot run on these inputs is not this one
            pass
    return ""
