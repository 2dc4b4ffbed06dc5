# expect: accepted
# Masks by multiplying with the float mask, computes the reference's sums under torch.no_grad(), and writes
# -log sigmoid(z) as softplus(-z).
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    chosen_weight = chosen_mask.to(policy_chosen_logps.dtype)
    rejected_weight = rejected_mask.to(policy_rejected_logps.dtype)
    with torch.no_grad():
        ref_margin = (ref_chosen_logps * chosen_weight).sum(-1) - (ref_rejected_logps * rejected_weight).sum(-1)
    policy_margin = (policy_chosen_logps * chosen_weight).sum(-1) - (policy_rejected_logps * rejected_weight).sum(-1)
    return F.softplus(-beta * (policy_margin - ref_margin)).mean()
