# expect: wrong_answer
# message: over all C classes, the true one included
# fails-on: label-smoothing-with-padding
# Puts exactly 1 - eps on the true class and eps / (C - 1) on each other one: the textbook variant, not the
# one PyTorch and the statement pin.
import torch


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    counted = target != ignore_index
    rows, labels = logits[counted], target[counted]
    log_probs = rows - torch.logsumexp(rows, dim=1, keepdim=True)
    classes = rows.shape[1]
    soft = torch.full_like(rows, label_smoothing / max(classes - 1, 1))
    soft[torch.arange(len(labels)), labels] = 1.0 - label_smoothing
    return -(soft * log_probs).sum(dim=1).mean()
