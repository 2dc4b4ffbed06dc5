# expect: wrong_answer
# message: -log σ(margin), which training minimises
# fails-on: small-batch
# Returns the log-likelihood of the preferences, log sigmoid(margin), instead of its negative.
import torch.nn.functional as F


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    chosen = (policy_chosen_logps * chosen_mask).sum(-1) - (ref_chosen_logps.detach() * chosen_mask).sum(-1)
    rejected = ((policy_rejected_logps * rejected_mask).sum(-1)
                - (ref_rejected_logps.detach() * rejected_mask).sum(-1))
    return F.logsigmoid(beta * (chosen - rejected)).mean()
