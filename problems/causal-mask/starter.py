import torch


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    """Bool `(t_q, t_k)` mask, True where query `i` (at position `t_k - t_q + i`) must not see key `j`."""
    raise NotImplementedError
