# expect: wrong_answer
# message: shape (1,), expected ()
# fails-on: small-batch
# Keeps gather's (N, 1) column and sums it over the tokens: the right number, returned with shape (1,)
# instead of as a 0-dim tensor, which breaks a caller's `loss.item()` checks, logging and `backward()`.
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    counted = (target != ignore_index)[:, None]
    safe = torch.where(counted[:, 0], target, 0)
    log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    nll = -log_probs.gather(1, safe[:, None])
    per_token = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=1, keepdim=True)
    return (per_token * counted).sum(dim=0) / counted.sum()
