"""Causal (optionally sliding-window) attention mask for queries at the end of a key sequence."""
import torch


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    """Bool `(t_q, t_k)` mask, True where query `i` (at position `t_k - t_q + i`) must not see key `j`."""
    if t_k is None:
        t_k = t_q
    if t_q > t_k:
        raise ValueError(f"t_q={t_q} queries cannot be the last positions of only t_k={t_k} keys")
    if window is not None and window < 1:
        raise ValueError(f"window={window} must be at least 1: a query always sees itself")
    offset = t_k - t_q
    # Key j is in the future of query i when j - i > offset: strictly above the diagonal shifted by offset.
    blocked = torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu_(offset + 1)
    if window is not None:
        # Key j has slid out of the window when j <= i + offset - window.
        blocked |= torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril_(offset - window)
    return blocked
