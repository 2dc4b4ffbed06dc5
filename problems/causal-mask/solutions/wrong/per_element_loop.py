# expect: time_limit_exceeded
# mistake: one Python-level tensor write per blocked (query, key) pair: millions of interpreter round trips for a mask that two vectorised calls build
import torch


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    if t_k is None:
        t_k = t_q
    if t_q > t_k:
        raise ValueError("t_q must not exceed t_k")
    if window is not None and window < 1:
        raise ValueError("window must be at least 1")
    blocked = torch.zeros(t_q, t_k, dtype=torch.bool, device=device)
    for i in range(t_q):
        position = t_k - t_q + i
        for j in range(t_k):
            if j > position or (window is not None and j <= position - window):
                blocked[i, j] = True
    return blocked
