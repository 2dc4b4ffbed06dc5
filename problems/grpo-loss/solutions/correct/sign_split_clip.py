# expect: accepted
# Group statistics by hand (sum / G, and sum of squares / (G - 1)), and the clipped surrogate written by the
# sign of the advantage: min(ratio, 1 + clip_eps) · A where A >= 0, max(ratio, 1 - clip_eps) · A where A < 0.
import torch


def grpo_loss(logps, old_logps, ref_logps, rewards, mask, group_size, clip_eps=0.2, beta=0.04, eps=1e-4):
    grouped = rewards.view(-1, group_size)
    mean = grouped.sum(1, keepdim=True) / group_size
    std = (((grouped - mean) ** 2).sum(1, keepdim=True) / (group_size - 1)).sqrt()
    a = ((grouped - mean) / (std + eps)).reshape(-1, 1)
    ratio = (logps - old_logps.detach()).exp()
    capped = torch.where(a >= 0, ratio.clamp(max=1 + clip_eps), ratio.clamp(min=1 - clip_eps))
    delta = ref_logps.detach() - logps
    per_token = beta * (delta.exp() - delta - 1) - capped * a
    lengths = mask.sum(1)
    return (per_token.masked_fill(~mask, 0).sum(1) / lengths).mean()
