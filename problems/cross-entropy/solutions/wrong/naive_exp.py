# expect: wrong_answer
# message: exp(x) overflows
# fails-on: large-logits
# log(sum(exp(x))) without subtracting the row maximum: exp(1e4) is inf, and inf - inf is NaN.
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    counted = target != ignore_index
    safe = torch.where(counted, target, 0)
    lse = logits.exp().sum(dim=1).log()
    nll = lse - logits.gather(1, safe[:, None]).squeeze(1)
    uniform = lse - logits.mean(dim=1)
    per_token = (1 - label_smoothing) * nll + label_smoothing * uniform
    return (per_token * counted).sum() / counted.sum()
