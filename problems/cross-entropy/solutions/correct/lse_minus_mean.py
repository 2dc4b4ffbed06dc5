# expect: accepted
# The loss without any log-probability table: -log p[t] = logsumexp(x) - x[t], and the smoothing term, the mean
# over classes of -log p, is logsumexp(x) - mean(x). Both subtract numbers of the logits' size, so where the
# logits are near 1e4 and the loss is tiny each is off by a rounding unit of 1e4, not of the loss.
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    counted = target != ignore_index
    lse = torch.logsumexp(logits, dim=1)
    picked = logits.gather(1, torch.where(counted, target, 0)[:, None]).squeeze(1)
    per_token = (1 - label_smoothing) * (lse - picked) + label_smoothing * (lse - logits.mean(dim=1))
    return (per_token * counted).sum() / counted.sum()
