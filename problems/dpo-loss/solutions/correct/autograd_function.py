# expect: accepted
# A custom autograd.Function: d loss / d z = -sigmoid(-z) / B per pair, sent to the policy's masked tokens with
# the sign of their side; the reference's inputs get no gradient (None).
import torch
import torch.nn.functional as F


class DPOLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta):
        chosen = (policy_chosen - ref_chosen).masked_fill(~chosen_mask, 0).sum(1)
        rejected = (policy_rejected - ref_rejected).masked_fill(~rejected_mask, 0).sum(1)
        z = beta * (chosen - rejected)
        ctx.save_for_backward(z, chosen_mask, rejected_mask)
        ctx.beta = beta
        return -F.logsigmoid(z).mean()

    @staticmethod
    def backward(ctx, dloss):
        z, chosen_mask, rejected_mask = ctx.saved_tensors
        dz = -torch.sigmoid(-z) * (dloss * ctx.beta / z.shape[0])
        d_chosen = dz[:, None] * chosen_mask
        d_rejected = -dz[:, None] * rejected_mask
        return d_chosen, d_rejected, None, None, None, None, None


def dpo_loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
             chosen_mask, rejected_mask, beta=0.1):
    return DPOLoss.apply(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
                         chosen_mask, rejected_mask, beta)
