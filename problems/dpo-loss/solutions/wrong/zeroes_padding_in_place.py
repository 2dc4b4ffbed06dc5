# expect: wrong_answer
# message: modified
# fails-on: small-batch
# Zeroes the masked-out positions of the reference's log-probs in place before summing: the values are right,
# and the caller's tensors are destroyed.
import torch.nn.functional as F


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    ref_chosen = ref_chosen_logps.detach().masked_fill_(~chosen_mask, 0.0).sum(-1)
    ref_rejected = ref_rejected_logps.detach().masked_fill_(~rejected_mask, 0.0).sum(-1)
    chosen = policy_chosen_logps.masked_fill(~chosen_mask, 0.0).sum(-1) - ref_chosen
    rejected = policy_rejected_logps.masked_fill(~rejected_mask, 0.0).sum(-1) - ref_rejected
    return -F.logsigmoid(beta * (chosen - rejected)).mean()
