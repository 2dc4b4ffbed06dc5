# expect: wrong_answer
# message: log(sigmoid(z)) is log 0 = -inf
# fails-on: large-margins-float32
# -log(sigmoid(z)) written out: right for ordinary margins, but sigmoid(z) rounds to 0 once z is below about
# -104 in float32, so the loss is inf and its gradient NaN.
import torch


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    chosen = (policy_chosen_logps * chosen_mask).sum(-1) - (ref_chosen_logps.detach() * chosen_mask).sum(-1)
    rejected = ((policy_rejected_logps * rejected_mask).sum(-1)
                - (ref_rejected_logps.detach() * rejected_mask).sum(-1))
    return -torch.log(torch.sigmoid(beta * (chosen - rejected))).mean()
