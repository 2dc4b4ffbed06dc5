"""grpo-loss's own code: its inputs, the call in the user's words, and why an output is wrong where that is
known (a gradient into a constant of the loss, a loss that is not finite)."""

import torch


def inputs(params, generator):
    p, g, t, scale = params["prompts"], params["group_size"], params["tokens"], params.get("scale", 4.0)
    b = p * g

    def uniform(low, high, *shape):
        return low + (high - low) * torch.rand(*shape, generator=generator, dtype=torch.float64)
    # The sampling policy's and the reference's log-probs within `drift` of the policy's, so that ratios leave
    # the clip range both ways; all within [-scale, 0].
    logps = uniform(-scale, 0.0, b, t)
    drift = params.get("drift", 0.5)
    old, ref = [(logps + uniform(-drift, drift, b, t)).clamp(-scale, 0.0) for _ in range(2)]
    # Rewards of a verifier (0 or 1), or graded in steps of 1/4; the first `equal` groups share one reward.
    levels = 2 if params.get("binary", True) else 5
    rewards = torch.randint(0, levels, (p, g), generator=generator).to(torch.float64) / (levels - 1)
    rewards[: params.get("equal", 0)] = rewards[: params.get("equal", 0), :1]
    lengths = torch.randint(max(1, t // 2), max(1, t - 1) + 1, (b, 1), generator=generator)
    starts = (uniform(0.0, 1.0, b, 1) * (t - lengths + 1)).long()
    position = torch.arange(t)
    mask = (position >= starts) & (position < starts + lengths)
    found = {"logps": logps, "old_logps": old, "ref_logps": ref, "rewards": rewards.view(b),
             "dloss": torch.randn((), generator=generator, dtype=torch.float64)}
    found = {name: value.to(getattr(torch, params["dtype"])) for name, value in found.items()}
    return {**found, "mask": mask}


def describe(params, inputs):
    keywords = "".join(f", {k}={params[k]!r}" for k in ("clip_eps", "beta", "eps") if k in params)
    call = (f"grpo_loss(..., group_size={params['group_size']}{keywords}) on {params['prompts']} prompts × "
            f"{params['group_size']} completions of {params['tokens']} tokens, {params['dtype']}")
    if params.get("equal"):
        call += f", the first {params['equal']} group(s) with every reward equal (std 0: their advantages are 0)"
    if params.get("scale", 4.0) > 100:
        call += f", log-probs down to -{params['scale']:g} (exp of them underflows in float32)"
    return call


def diagnose(name, params, inputs, got, truth):
    if name.endswith(".grad.abs().max()"):
        which = name.split(".")[0]
        return (f"The loss sent a gradient into {which}, a constant of the loss: the sampling policy's log-probs "
                "(in the ratio) and the reference's (in the KL) must be detached, so only logps gets a gradient.")
    if got is None or torch.isfinite(got).all():
        return ""
    grouped = inputs["rewards"].view(-1, params["group_size"])
    if (grouped == grouped[:, :1]).all(dim=1).any():
        return ("A group whose rewards are all equal has std 0: (r - mean) / std is 0 / 0 = NaN. Divide by "
                "(std + eps), which gives those completions an advantage of 0.")
    if params.get("scale", 4.0) > 100:
        return ("exp(logps) underflows to 0 at log-probs this low, so exp(logps) / exp(old_logps) is 0 / 0: "
                "compute the ratio as exp(logps - old_logps).")
    return ""
