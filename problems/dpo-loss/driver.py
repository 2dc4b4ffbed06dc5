"""Calls the submission's dpo_loss on the judge's inputs, then again on fresh leaves of all four log-probs, and
reports the loss, the policy's gradients and the largest gradient magnitude that reached the reference's."""
import torch

LOGPS = ("policy_chosen_logps", "policy_rejected_logps", "ref_chosen_logps", "ref_rejected_logps")
# The largest |gradient| that reached ref_chosen_logps or ref_rejected_logps: 0 where none did.
REFERENCE_GRADIENT = "ref_logps.grad.abs().max()"


def run(solution, params, inputs, ctx):
    keywords = {"beta": params["beta"]} if "beta" in params else {}
    masks = (inputs["chosen_mask"], inputs["rejected_mask"])
    with torch.no_grad():  # on the inputs themselves, so that a write into one is seen
        loss = solution.dpo_loss(*(inputs[name] for name in LOGPS), *masks, **keywords)
    out = {"loss": loss.detach().clone()} if isinstance(loss, torch.Tensor) else {}
    # Every log-prob a leaf that requires grad, the reference's too: only the policy's may get a gradient.
    leaves = [inputs[name].detach().clone().requires_grad_(True) for name in LOGPS]
    again = solution.dpo_loss(*leaves, *masks, **keywords)
    if not isinstance(again, torch.Tensor) or not again.requires_grad or again.dim() != 0:
        return out
    grads = torch.autograd.grad(again, leaves, inputs["dloss"], allow_unused=True)
    out.update({f"{name}.grad": grad for name, grad in zip(LOGPS[:2], grads[:2]) if grad is not None})
    reached = [grad.detach().abs().max() for grad in grads[2:] if grad is not None and grad.numel()]
    none = torch.zeros((), dtype=again.dtype, device=again.device)
    out[REFERENCE_GRADIENT] = torch.stack(reached).max() if reached else none
    return out
