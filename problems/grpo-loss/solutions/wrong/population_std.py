# expect: wrong_answer
# message: G - 1 in the denominator
# fails-on: small-groups
# The population std (correction=0, as numpy.std and torch.var(unbiased=False) give): off by sqrt(G / (G - 1)).
import torch


def grpo_loss(logps, old_logps, ref_logps, rewards, mask, group_size, clip_eps=0.2, beta=0.04, eps=1e-4):
    grouped = rewards.view(-1, group_size)
    a = ((grouped - grouped.mean(1, keepdim=True)) / (grouped.std(1, keepdim=True, correction=0) + eps)).view(-1, 1)
    ratio = torch.exp(logps - old_logps.detach())
    clipped = torch.clamp(ratio, 1 - clip_eps, 1 + clip_eps)
    surrogate = torch.minimum(ratio * a, clipped * a)
    delta = ref_logps.detach() - logps
    kl = torch.exp(delta) - delta - 1
    per_token = -(surrogate - beta * kl)
    return ((per_token * mask).sum(1) / mask.sum(1)).mean()
