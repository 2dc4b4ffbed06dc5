import torch


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100,
                  label_smoothing: float = 0.0) -> torch.Tensor:
    """Mean cross-entropy of (N, C) logits against (N,) int64 class indices, as a 0-dim tensor.

    Targets equal to ignore_index count for nothing (the mean is over the other tokens); label_smoothing
    mixes the one-hot target with the uniform distribution over the C classes. Stable for logits of
    magnitude 1e4, differentiable with respect to logits. F.cross_entropy, F.nll_loss and the log-softmax
    family are not allowed here.
    """
    raise NotImplementedError
