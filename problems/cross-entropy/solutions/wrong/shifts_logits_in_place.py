# expect: wrong_answer
# message: modified
# fails-on: small-batch
# Subtracts the row maximum in place to save memory: the values are right, the caller's logits are destroyed.
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    logits -= logits.amax(dim=1, keepdim=True)
    counted = target != ignore_index
    safe = torch.where(counted, target, 0)
    log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    nll = -log_probs.gather(1, safe[:, None]).squeeze(1)
    per_token = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=1)
    return (per_token * counted).sum() / counted.sum()
