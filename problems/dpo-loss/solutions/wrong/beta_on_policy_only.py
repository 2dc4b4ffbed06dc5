# expect: wrong_answer
# message: beta multiplies the whole margin
# fails-on: small-batch
# beta * (pi_c - pi_r) - (ref_c - ref_r): beta scales the policy's log-ratio but not the reference's.
import torch.nn.functional as F


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    policy = (policy_chosen_logps * chosen_mask).sum(-1) - (policy_rejected_logps * rejected_mask).sum(-1)
    ref = ((ref_chosen_logps.detach() * chosen_mask).sum(-1)
           - (ref_rejected_logps.detach() * rejected_mask).sum(-1))
    return -F.logsigmoid(beta * policy - ref).mean()
