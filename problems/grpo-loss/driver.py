"""Calls the submission's grpo_loss on the judge's inputs, then again on fresh leaves of all three log-probs, and
reports the loss, the gradient of logps and the largest gradient magnitude that reached old_logps and ref_logps."""
import torch

LOGPS = ("logps", "old_logps", "ref_logps")


def run(solution, params, inputs, ctx):
    keywords = {name: params[name] for name in ("clip_eps", "beta", "eps") if name in params}
    given = (inputs["rewards"], inputs["mask"], params["group_size"])
    with torch.no_grad():  # on the inputs themselves, so that a write into one is seen
        loss = solution.grpo_loss(*(inputs[name] for name in LOGPS), *given, **keywords)
    out = {"loss": loss.detach().clone()} if isinstance(loss, torch.Tensor) else {}
    # Every log-prob a leaf that requires grad: only the policy's may get a gradient.
    leaves = [inputs[name].detach().clone().requires_grad_(True) for name in LOGPS]
    again = solution.grpo_loss(*leaves, *given, **keywords)
    if not isinstance(again, torch.Tensor) or not again.requires_grad or again.dim() != 0:
        return out
    grads = torch.autograd.grad(again, leaves, inputs["dloss"], allow_unused=True)
    if grads[0] is not None:
        out["logps.grad"] = grads[0]
    for name, grad in zip(LOGPS[1:], grads[1:]):
        # The largest |gradient| that reached a constant of the loss: 0 where none did.
        none = torch.zeros((), dtype=again.dtype, device=again.device)
        out[f"{name}.grad.abs().max()"] = none if grad is None or not grad.numel() else grad.detach().abs().max()
    return out
