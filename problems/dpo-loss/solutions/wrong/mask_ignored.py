# expect: wrong_answer
# message: prompt and padding included
# fails-on: small-batch
# Sums every position of each row: the prompt's and the padding's log-probs are counted as completion tokens.
import torch.nn.functional as F


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    chosen = policy_chosen_logps.sum(-1) - ref_chosen_logps.detach().sum(-1)
    rejected = policy_rejected_logps.sum(-1) - ref_rejected_logps.detach().sum(-1)
    return -F.logsigmoid(beta * (chosen - rejected)).mean()
