# expect: accepted
# Group mean and std broadcast back to every row with repeat_interleave; ratios under torch.no_grad() for the
# constants, the surrogate as -max(-ratio · A, -clipped · A), the mask as a float weight.
import torch


def grpo_loss(logps, old_logps, ref_logps, rewards, mask, group_size, clip_eps=0.2, beta=0.04, eps=1e-4):
    with torch.no_grad():
        groups = rewards.reshape(-1, group_size)
        mean = groups.mean(dim=1).repeat_interleave(group_size)
        std = groups.std(dim=1, correction=1).repeat_interleave(group_size)
        advantages = ((rewards - mean) / (std + eps))[:, None]
        old, ref = old_logps.clone(), ref_logps.clone()
    ratio = torch.exp(logps - old)
    clipped = ratio.clamp(1 - clip_eps, 1 + clip_eps)
    surrogate = -torch.maximum(-ratio * advantages, -clipped * advantages)
    kl = torch.exp(ref - logps) - (ref - logps) - 1
    weight = mask.to(logps.dtype)
    per_sequence = ((beta * kl - surrogate) * weight).sum(-1) / weight.sum(-1)
    return per_sequence.sum() / per_sequence.numel()
