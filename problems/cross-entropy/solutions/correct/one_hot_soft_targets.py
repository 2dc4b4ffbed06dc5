# expect: accepted
# Soft targets from F.one_hot, a weighted sum of per-token losses with weights 1/count on counted tokens.
import torch
import torch.nn.functional as F


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    classes = logits.shape[-1]
    counted = (target != ignore_index).to(logits.dtype)
    one_hot = F.one_hot(torch.where(target == ignore_index, 0, target), classes).to(logits.dtype)
    soft = one_hot * (1 - label_smoothing) + label_smoothing / classes
    m = logits.detach().amax(dim=-1, keepdim=True)
    lse = m.squeeze(-1) + torch.log(torch.sum(torch.exp(logits - m), dim=-1))
    per_token = lse - torch.einsum("nc,nc->n", soft, logits)
    weights = counted / counted.sum()
    return torch.dot(per_token, weights)
