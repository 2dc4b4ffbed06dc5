# expect: wrong_answer
# message: the sum of its completion tokens' log-probs
# fails-on: small-batch
# Length-normalises: each sequence's log-prob is the mean of its masked tokens' log-probs, not their sum.
import torch.nn.functional as F


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    def seq(logps, mask):
        return (logps * mask).sum(-1) / mask.sum(-1)

    chosen = seq(policy_chosen_logps, chosen_mask) - seq(ref_chosen_logps.detach(), chosen_mask)
    rejected = seq(policy_rejected_logps, rejected_mask) - seq(ref_rejected_logps.detach(), rejected_mask)
    return -F.logsigmoid(beta * (chosen - rejected)).mean()
