# expect: wrong_answer
# message: its subgradient there is -1
# fails-on: policy-equals-reference
# A stable -log sigmoid(z) written as max(-z, 0) + log1p(exp(-|z|)): the right value everywhere, but at z = 0
# exactly, where a policy initialised from its reference starts, autograd takes the kinks' subgradients
# (clamp passes 1, abs gives 0) and d loss / dz is -1 instead of -1/2.
import torch


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    def total(logps, mask):
        return logps.masked_fill(~mask, 0.0).sum(dim=1)

    chosen = total(policy_chosen_logps, chosen_mask) - total(ref_chosen_logps.detach(), chosen_mask)
    rejected = total(policy_rejected_logps, rejected_mask) - total(ref_rejected_logps.detach(), rejected_mask)
    z = beta * (chosen - rejected)
    per_pair = torch.clamp(-z, min=0.0) + torch.log1p(torch.exp(-z.abs()))
    return per_pair.sum() / z.shape[0]
