# expect: wrong_answer
# message: softmax - ((1 - ε)·one_hot + ε/C)
# fails-on: label-smoothing-with-padding
# The forward is right; the hand-written backward is the unsmoothed softmax - one_hot.
import torch


class CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, logits, target, ignore_index, label_smoothing):
        counted = target != ignore_index
        safe = torch.where(counted, target, 0)
        log_probs = logits - torch.logsumexp(logits, dim=1, keepdim=True)
        nll = -log_probs.gather(1, safe[:, None]).squeeze(1)
        per_token = (1 - label_smoothing) * nll - label_smoothing * log_probs.mean(dim=1)
        ctx.save_for_backward(log_probs.exp(), safe, counted)
        return (per_token * counted).sum() / counted.sum()

    @staticmethod
    def backward(ctx, dloss):
        probs, safe, counted = ctx.saved_tensors
        one_hot = torch.zeros_like(probs).scatter_(1, safe[:, None], 1.0)
        return (probs - one_hot) * counted[:, None] * dloss / counted.sum(), None, None, None


def cross_entropy(logits, target, ignore_index=-100, label_smoothing=0.0):
    return CrossEntropy.apply(logits, target, ignore_index, label_smoothing)
