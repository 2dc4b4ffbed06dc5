import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    """Inverted dropout: in training, zero each element of x independently with probability p and divide the kept
    ones by 1 - p; with training=False or p = 0 return x unchanged; p = 1 gives all zeros (no NaN). Draw every
    random number from `generator`. Differentiable: the gradient flows through the kept elements only."""
    raise NotImplementedError


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    """Stochastic depth on a residual branch's output x of shape (batch, ...): in training, zero each sample's
    whole x[b] with probability p and divide the kept samples by 1 - p; otherwise as dropout. The caller adds
    the residual: out = h + drop_path(branch(h), p, training, generator=g)."""
    raise NotImplementedError
