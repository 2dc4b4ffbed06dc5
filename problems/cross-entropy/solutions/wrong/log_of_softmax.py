# expect: wrong_answer
# message: softmax(x) can round to 0
# fails-on: large-logits
# log(softmax(x)): the softmax is stable, but a probability below ~1e-45 rounds to 0 and its log is -inf.
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    counted = target != ignore_index
    safe = torch.where(counted, target, 0)
    log_probs = torch.softmax(logits, dim=1).log()
    nll = -log_probs.gather(1, safe[:, None]).squeeze(1)
    uniform = -log_probs.mean(dim=1)
    per_token = (1 - label_smoothing) * nll + label_smoothing * uniform
    return (per_token * counted).sum() / counted.sum()
