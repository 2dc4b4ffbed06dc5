"""Trusted: the script's gradients, and every step against the reference in float64; [[mistakes]] named."""
import tomllib
from pathlib import Path

import torch

from runner import kit
from runner.kit.standard import load_module, run_in_float64

driver = load_module((HERE := Path(__file__).parent) / "driver.py", "judge_loss_scaler_driver")
MISTAKES = [(load_module(HERE / m["solution"], f"judge_loss_scaler_mistake_{i}"), m["says"])
            for i, m in enumerate(tomllib.loads((HERE / "problem.toml").read_text())["mistakes"])]


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


def check(params, inputs, got, expected):
    truth = kit.truth_by_reference(__file__, params, inputs)
    for name in expected:
        message = kit.check_close(name, got.get(name), expected[name], truth[name]) \
            if expected[name].is_floating_point() else kit.check_exact(name, got.get(name), expected[name])
        if message:
            return f"{message}.{mistake(name, params, inputs, got, expected, truth)}"


def mistake(name, params, inputs, got, expected, truth):
    names = list(expected)[:list(expected).index(name) + 1]
    if all(got.get(n) is not None and got[n].shape == truth[n].shape for n in names):
        for solution, says in MISTAKES:
            try:
                candidate = run_in_float64(driver.run, solution, params, inputs)
                if not near(candidate, truth, name, expected, truth) and \
                        all(near(got, candidate, n, expected, truth, 4.0) for n in names):
                    return f" This is exactly what {says}."
            except Exception:  # noqa: BLE001 - a mistake that cannot run on these inputs is not this one
                pass
    return ""


def near(a, b, name, expected, truth, times=1.0):
    allowed = kit.tolerance(a[name].dtype, expected[name], truth[name]) if a[name].is_floating_point() else 0.0
    return a[name].double().allclose(b[name].double(), 0, times * allowed, True)
