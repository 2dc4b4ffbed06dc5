"""Trusted: one parameter per group; diagnose names the first wrong step and its phase of the schedule."""
import torch

OUTPUTS = {"lr": "param_groups[g]['lr']", "get_last_lr()": "get_last_lr()[g]"}
RESUMED = " after resuming"


def inputs(params, generator):
    return {f"w{g}": torch.randn(3, generator=generator, dtype=torch.float64) for g in range(len(params["peaks"]))}


def describe(params, inputs):
    options = "".join(f", {key}={params[key]!r}" for key in ("min_lr", "warmup_start_lr") if key in params)
    return (f"WarmupCosine(optimizer with peak lrs {params['peaks']}, warmup_steps={params['warmup_steps']}, "
            f"total_steps={params['total_steps']}{options}) stepped {params['steps']} times")


def call_of(name, params, inputs):
    what, at = OUTPUTS[name.removesuffix(RESUMED)], params["resume_at"]
    if name.endswith(RESUMED):
        return (f"{what} of a fresh optimizer and WarmupCosine that loaded the state_dicts saved after step {at} "
                f"(row i: after {at} + i steps)")
    return f"{what} (row t: after t calls of step(), row 0 right after construction)"


def phase(t, params):
    warmup, total = params["warmup_steps"], params["total_steps"]
    if t <= warmup:
        return (f"in the warmup (t < warmup_steps = {warmup})" if t < warmup
                else f"at warmup_steps = {warmup}, where lr is the group's peak")
    return (f"in the cosine decay (warmup_steps < t <= total_steps = {total})" if t <= total
            else f"after total_steps = {total}, where lr stays at min_lr")


def diagnose(name, params, inputs, got, truth):
    expected = truth[name]
    if got is None or got.shape != expected.shape:
        return ""
    wrong = ((got - expected).abs() > 1e-15 + 1e-10 * expected.abs()).any(dim=1).nonzero()
    t = int(wrong[0]) + (params["resume_at"] if name.endswith(RESUMED) else 0) if len(wrong) else None
    return f"The first wrong row is step {t}, {phase(t, params)}." if t is not None else ""
