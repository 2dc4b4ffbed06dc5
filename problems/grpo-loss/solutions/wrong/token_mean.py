# expect: wrong_answer
# message: every completion weighs the same whatever its length
# fails-on: small-groups
# One mean over every masked token of the batch (the token-level mean of DAPO), not the per-sequence mean
# then the batch mean that this problem pins.
import torch


def grpo_loss(logps, old_logps, ref_logps, rewards, mask, group_size, clip_eps=0.2, beta=0.04, eps=1e-4):
    grouped = rewards.view(-1, group_size)
    a = ((grouped - grouped.mean(1, keepdim=True)) / (grouped.std(1, keepdim=True) + eps)).view(-1, 1)
    ratio = torch.exp(logps - old_logps.detach())
    clipped = torch.clamp(ratio, 1 - clip_eps, 1 + clip_eps)
    surrogate = torch.minimum(ratio * a, clipped * a)
    delta = ref_logps.detach() - logps
    kl = torch.exp(delta) - delta - 1
    per_token = -(surrogate - beta * kl)
    return (per_token * mask).sum() / mask.sum()
