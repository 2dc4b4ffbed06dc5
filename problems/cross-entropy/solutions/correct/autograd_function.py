# expect: accepted
# A custom autograd.Function: the forward saves the softmax, the backward is softmax - smoothed target, per
# counted token, divided by the number of counted tokens.
import torch


class CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index, label_smoothing):
        counted = target != ignore_index
        safe = target.masked_fill(~counted, 0)
        peak = logits.max(dim=1, keepdim=True).values
        lse = peak + (logits - peak).exp().sum(dim=1, keepdim=True).log()
        nll = lse.squeeze(1) - logits.gather(1, safe[:, None]).squeeze(1)
        uniform = lse.squeeze(1) - logits.mean(dim=1)
        per_token = (1 - label_smoothing) * nll + label_smoothing * uniform
        count = counted.sum()
        ctx.save_for_backward((logits - lse).exp(), safe, counted, count)
        ctx.label_smoothing = label_smoothing
        return (per_token * counted).sum() / count

    @staticmethod
    def backward(ctx, dloss):
        probs, safe, counted, count = ctx.saved_tensors
        eps = ctx.label_smoothing
        grad = probs - eps / probs.shape[1]
        grad.scatter_add_(1, safe[:, None], torch.full_like(probs[:, :1], -(1 - eps)))
        grad = grad * (counted[:, None] * (dloss / count))
        return grad, None, None, None


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    return CrossEntropy.apply(logits, target, ignore_index, label_smoothing)
