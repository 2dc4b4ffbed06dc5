import torch


def grpo_loss(logps: torch.Tensor, old_logps: torch.Tensor, ref_logps: torch.Tensor, rewards: torch.Tensor,
              mask: torch.Tensor, group_size: int, clip_eps: float = 0.2, beta: float = 0.04,
              eps: float = 1e-4) -> torch.Tensor:
    # Advantages: each completion's reward against its own group's (the G completions of one prompt, stored
    # in consecutive rows), with the sample std (correction 1); eps keeps a group of equal rewards at 0.
    grouped = rewards.detach().view(-1, group_size)
    mean = grouped.mean(dim=1, keepdim=True)
    std = grouped.std(dim=1, keepdim=True)
    advantages = ((grouped - mean) / (std + eps)).view(-1, 1)
    # The ratio from log-probs, exp(logp - old_logp): the sampling policy's log-probs are constants.
    log_ratio = logps - old_logps.detach()
    ratio = torch.exp(log_ratio)
    clipped = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + clip_eps)
    surrogate = torch.minimum(ratio * advantages, clipped * advantages)
    # k3 estimator of KL(policy || reference): exp(ref - logp) - (ref - logp) - 1, never negative.
    ref_minus = ref_logps.detach() - logps
    kl = torch.exp(ref_minus) - ref_minus - 1.0
    per_token = -(surrogate - beta * kl)
    # Mean over each sequence's own tokens, then over the sequences.
    counted = mask.to(per_token.dtype)
    per_sequence = torch.where(mask, per_token, torch.zeros_like(per_token)).sum(dim=1) / counted.sum(dim=1)
    return per_sequence.mean()
