# expect: wrong_answer
# message: neither its -log p[target] nor its uniform term
# fails-on: label-smoothing-with-padding
# Masks the NLL term, but averages the smoothing term over every row, padding included.
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    counted = target != ignore_index
    safe = torch.where(counted, target, 0)
    log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    nll = -log_probs.gather(1, safe[:, None]).squeeze(1)
    nll = (nll * counted).sum() / counted.sum()
    return (1 - label_smoothing) * nll - label_smoothing * log_probs.mean()
