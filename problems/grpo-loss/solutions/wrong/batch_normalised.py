# expect: wrong_answer
# message: within its own group
# fails-on: small-groups
# Normalises the rewards with the mean and std of the whole batch: a prompt whose completions all succeed
# gets positive advantages just because it is easy.
import torch


def grpo_loss(logps, old_logps, ref_logps, rewards, mask, group_size, clip_eps=0.2, beta=0.04, eps=1e-4):
    a = ((rewards - rewards.mean()) / (rewards.std() + eps)).view(-1, 1)
    ratio = torch.exp(logps - old_logps.detach())
    clipped = torch.clamp(ratio, 1 - clip_eps, 1 + clip_eps)
    surrogate = torch.minimum(ratio * a, clipped * a)
    delta = ref_logps.detach() - logps
    kl = torch.exp(delta) - delta - 1
    per_token = -(surrogate - beta * kl)
    return ((per_token * mask).sum(1) / mask.sum(1)).mean()
