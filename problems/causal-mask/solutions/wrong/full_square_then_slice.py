# expect: memory_limit_exceeded
# mistake: builds the whole (t_k, t_k) mask and slices its last t_q rows: one decoding step with a long cache allocates t_k times the memory it returns
# message: memory
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
    blocked = torch.ones(t_k, t_k, dtype=torch.bool, device=device).triu(1)
    if window is not None:
        blocked |= torch.ones(t_k, t_k, dtype=torch.bool, device=device).tril(-window)
    return blocked[t_k - t_q :].clone()
