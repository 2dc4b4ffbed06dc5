# expect: accepted
# Advantages one prompt at a time (a loop over the P groups, torch.std_mean), then the rest vectorised; the
# per-sequence means by nanmean over the tokens with masked positions set to NaN.
import torch


def grpo_loss(logps, old_logps, ref_logps, rewards, mask, group_size, clip_eps=0.2, beta=0.04, eps=1e-4):
    advantages = []
    for group in rewards.detach().split(group_size):
        std, mean = torch.std_mean(group)
        advantages.append((group - mean) / (std + eps))
    a = torch.cat(advantages).unsqueeze(1)
    log_ratio = logps - old_logps.detach()
    unclipped, clipped = log_ratio.exp() * a, log_ratio.exp().clamp(1 - clip_eps, 1 + clip_eps) * a
    log_ref_ratio = ref_logps.detach() - logps
    kl = log_ref_ratio.exp() - log_ref_ratio - 1
    per_token = beta * kl - torch.min(unclipped, clipped)
    return per_token.masked_fill(~mask, float("nan")).nanmean(dim=1).mean()
