# expect: wrong_answer
# message: sent a gradient into the reference model
# fails-on: small-batch
# The right loss, but the reference's log-probs stay in the graph: backward sends them a gradient, which for a
# reference model that shares its parameters (or was not frozen) trains it too.
import torch.nn.functional as F


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    def total(logps, mask):
        return (logps * mask).sum(-1)

    chosen = total(policy_chosen_logps, chosen_mask) - total(ref_chosen_logps, chosen_mask)
    rejected = total(policy_rejected_logps, rejected_mask) - total(ref_rejected_logps, rejected_mask)
    return -F.logsigmoid(beta * (chosen - rejected)).mean()
