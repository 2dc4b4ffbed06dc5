"""dpo-loss's own code: its inputs, the call in the user's words, and why an output is wrong where that is
known (a gradient into the frozen reference, a loss that is not finite at large margins)."""

import torch

from runner import kit


def _mask(batch, length, generator):
    """A completion span per row between a prompt and padding, shorter than the row where length > 1."""
    shortest, longest = max(1, length // 2), max(1, length - 1)
    lengths = torch.randint(shortest, longest + 1, (batch,), generator=generator)
    starts = (torch.rand(batch, generator=generator, dtype=torch.float64) * (length - lengths + 1)).long()
    position = torch.arange(length)
    return (position >= starts[:, None]) & (position < (starts + lengths)[:, None])


def inputs(params, generator):
    b, tc, tr, scale = params["batch"], params["t_chosen"], params["t_rejected"], params.get("scale", 4.0)

    def logps(t, low=-scale, high=0.0):
        return low + (high - low) * torch.rand(b, t, generator=generator, dtype=torch.float64)
    pc, pr, rc, rr = logps(tc), logps(tr), logps(tc), logps(tr)
    if params.get("extreme"):
        # Row i's margin is at least 45 * beta per masked token, negative on even rows, positive on odd ones:
        # the favoured log-probs lie in [-5, 0], the others in [-100, -50].
        near, far, near_r, far_r = logps(tc, -5.0), logps(tc, -100.0, -50.0), logps(tr, -5.0), logps(tr, -100.0, -50.0)
        odd = (torch.arange(b) % 2 == 1)[:, None]
        pc, rc = torch.where(odd, near, far), torch.where(odd, far, near)
        pr, rr = torch.where(odd, far_r, near_r), torch.where(odd, near_r, far_r)
    if params.get("same"):
        pc, pr = rc.clone(), rr.clone()
    found = {"policy_chosen_logps": pc, "policy_rejected_logps": pr, "ref_chosen_logps": rc,
             "ref_rejected_logps": rr, "dloss": torch.randn((), generator=generator, dtype=torch.float64)}
    found = {name: value.to(getattr(torch, params["dtype"])) for name, value in found.items()}
    found.update(chosen_mask=_mask(b, tc, generator), rejected_mask=_mask(b, tr, generator))
    return found


def describe(params, inputs):
    beta = f", beta={params['beta']!r}" if "beta" in params else ""
    call = (f"dpo_loss(...{beta}) on {params['batch']} pairs, {params['batch']}×{params['t_chosen']} chosen and "
            f"{params['batch']}×{params['t_rejected']} rejected {params['dtype']} log-probs")
    if "beta" not in params:
        call += ", beta left at its default (0.1)"
    if params.get("same"):
        call += ", the policy's log-probs equal to the reference's (every margin 0, the loss log 2)"
    if params.get("extreme"):
        call += (", margins beyond ±1000 of both signs (sigmoid(z) rounds to 0 below about -104 in float32 and "
                 "-745 in float64)")
    return call


def diagnose(name, params, inputs, got, truth):
    if name == "ref_logps.grad.abs().max()":
        return kit.why_after_colon(
            "The loss sent a gradient into the reference model's log-probs. The reference is frozen, its "
            "log-probs are constants of the loss: detach them (or compute with them under torch.no_grad()), "
            "and only the policy's log-probs get a gradient.")
    if got is None:
        return ("dpo_loss must return the loss as a 0-dim tensor connected to autograd (no .item(), .detach() or "
                "torch.no_grad() on the policy's path).")
    if params.get("extreme") and not torch.isfinite(got).all():
        return kit.why_after_colon(
            "At these margins log(sigmoid(z)) is log 0 = -inf, log(1 + exp(-z)) overflows, and the gradient "
            "through them is NaN: compute -log sigmoid(z) as -F.logsigmoid(z) or F.softplus(-z), finite at any z.")
    if name == "loss" and (got.double() - truth[name]).abs().item() < 1e-3 * (1 + truth[name].abs().item()):
        return kit.why_after_colon(
            "The loss is close: it is a difference of sums of many log-probs, so accumulate them as accurately "
            "as torch.sum does (a float32 einsum, matmul or index_add sums sequentially and loses digits; "
            "float64 accumulation is fine).")
    return ""
