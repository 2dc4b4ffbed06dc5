# expect: wrong_answer
# message: counted tokens only
# fails-on: padding-ignored
# Masks the ignored tokens' loss to zero but still divides by N, so padding shrinks the loss.
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    counted = target != ignore_index
    safe = torch.where(counted, target, 0)
    log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    nll = -log_probs.gather(1, safe[:, None]).squeeze(1)
    per_token = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=1)
    return (per_token * counted).mean()
