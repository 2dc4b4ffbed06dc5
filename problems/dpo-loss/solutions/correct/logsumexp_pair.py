# expect: accepted
# Accumulates in float64 (einsum with the mask, then cast back): -log sigmoid(z) = log(1 + exp(-z)) =
# logsumexp(0, -z), stable at any z and smooth at z = 0; the reference's sums under torch.no_grad().
import torch


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    def total(logps, mask):
        return torch.einsum("bt,bt->b", logps.double(), mask.double())

    with torch.no_grad():
        ref_margin = total(ref_chosen_logps, chosen_mask) - total(ref_rejected_logps, rejected_mask)
    z = beta * (total(policy_chosen_logps, chosen_mask) - total(policy_rejected_logps, rejected_mask) - ref_margin)
    loss = torch.logsumexp(torch.stack([torch.zeros_like(z), -z]), dim=0).mean()
    return loss.to(policy_chosen_logps.dtype)
