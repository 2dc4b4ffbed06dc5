# expect: wrong_answer
# message: the ignore_index argument
# fails-on: pad-id-zero
# Masks target == -100, the PyTorch default, whatever ignore_index the caller passed.
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    counted = target != -100
    safe = torch.where(counted, target, 0)
    log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    nll = -log_probs.gather(1, safe[:, None]).squeeze(1)
    per_token = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=1)
    return (per_token * counted).sum() / counted.sum()
