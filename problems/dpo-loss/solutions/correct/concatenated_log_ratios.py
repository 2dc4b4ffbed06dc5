# expect: accepted
# One tensor of signed per-token log-ratios: the chosen ones, then the rejected ones negated, concatenated
# along time with their masks, so one masked sum gives each pair's margin.
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    ratios = torch.cat([policy_chosen_logps - ref_chosen_logps.detach(),
                        ref_rejected_logps.detach() - policy_rejected_logps], dim=1)
    mask = torch.cat([chosen_mask, rejected_mask], dim=1)
    margin = torch.where(mask, ratios, 0.0).sum(dim=1)
    return -F.logsigmoid(beta * margin).mean()
