import torch


def dpo_loss(policy_chosen_logps: torch.Tensor, policy_rejected_logps: torch.Tensor,
             ref_chosen_logps: torch.Tensor, ref_rejected_logps: torch.Tensor,
             chosen_mask: torch.Tensor, rejected_mask: torch.Tensor, beta: float = 0.1) -> torch.Tensor:
    """Mean DPO loss over a batch of B preference pairs, as a 0-dim tensor.

    The *_chosen_logps are (B, Tc) per-token log-probs of the chosen completions, the *_rejected_logps
    (B, Tr) of the rejected ones, under the policy and under the frozen reference model; chosen_mask and
    rejected_mask (bool, same shapes) are True at the completion tokens that count. A sequence's log-prob is
    the sum over its True positions. Loss per pair: -log sigmoid(beta * ((pi_c - ref_c) - (pi_r - ref_r))).
    Finite at any margin; no gradient may reach the reference's log-probs; do not modify the inputs.
    """
    raise NotImplementedError
