# expect: wrong_answer
# message: swapping chosen and rejected
# fails-on: small-batch
# The margin is the rejected log-ratio minus the chosen one: training would push the policy towards the
# rejected completions.
import torch.nn.functional as F


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    chosen = (policy_chosen_logps * chosen_mask).sum(-1) - (ref_chosen_logps.detach() * chosen_mask).sum(-1)
    rejected = ((policy_rejected_logps * rejected_mask).sum(-1)
                - (ref_rejected_logps.detach() * rejected_mask).sum(-1))
    return -F.logsigmoid(beta * (rejected - chosen)).mean()
