# expect: memory_limit_exceeded
# mistake: builds only the rows it returns for causality, but the window's band as the whole (t_k, t_k) lower
# triangle, sliced afterwards: one decoding step with a window and a long cache allocates t_k times the row returned
# message: memory
# fails-on: memory-one-query-long-cache
import torch


def causal_mask(t_q, t_k=None, *, window=None, device=None):
    t_k = t_q if t_k is None else t_k
    if t_q > t_k or (window is not None and window < 1):
        raise ValueError("causal_mask needs t_q <= t_k and, when given, window >= 1")
    keys = torch.arange(t_k, device=device)
    blocked = keys[None, :] > keys[t_k - t_q:, None]
    if window is not None:
        blocked |= torch.ones(t_k, t_k, dtype=torch.bool, device=device).tril(-window)[t_k - t_q:]
    return blocked
