import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen_logps: torch.Tensor, policy_rejected_logps: torch.Tensor,
             ref_chosen_logps: torch.Tensor, ref_rejected_logps: torch.Tensor,
             chosen_mask: torch.Tensor, rejected_mask: torch.Tensor, beta: float = 0.1) -> torch.Tensor:
    # A sequence's log-probability is the SUM of its completion tokens' log-probs; prompt and padding
    # positions (mask False) hold values that must count for nothing. where(), not a product, so that no
    # value at a masked position can reach the sum.
    def summed(logps, mask):
        return torch.where(mask, logps, torch.zeros_like(logps)).sum(dim=-1)

    # The reference model is frozen: its log-probs are constants of the loss, so no gradient flows into them.
    ref_chosen = summed(ref_chosen_logps.detach(), chosen_mask)
    ref_rejected = summed(ref_rejected_logps.detach(), rejected_mask)
    chosen_ratio = summed(policy_chosen_logps, chosen_mask) - ref_chosen
    rejected_ratio = summed(policy_rejected_logps, rejected_mask) - ref_rejected
    margin = beta * (chosen_ratio - rejected_ratio)
    # -log sigmoid(z) through logsigmoid, which stays finite at any margin (log(sigmoid(z)) is -inf once
    # sigmoid(z) underflows to 0); the mean over the B pairs.
    return -F.logsigmoid(margin).mean()
