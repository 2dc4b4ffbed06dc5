# expect: runtime_error
# message: RuntimeError
# fails-on: padding-ignored
# Gathers log p[target] for every row before masking: target -100 is not a class index, and gather raises.
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    nll = -log_probs.gather(1, target[:, None]).squeeze(1)
    per_token = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=1)
    counted = target != ignore_index
    return (per_token * counted).sum() / counted.sum()
