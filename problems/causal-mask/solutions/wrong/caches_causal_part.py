# expect: wrong_answer
# mistake: the causal part is memoised and a window is applied out of place, so only masks without a window come back as the cached tensor itself, and a caller's in-place edit of one corrupts every later call
# message: new tensor
import functools

import torch


@functools.lru_cache(maxsize=32)
def _causal(t_q: int, t_k: int, device) -> torch.Tensor:
    return torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(t_k - t_q + 1)


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    if t_k is None:
        t_k = t_q
    if t_q > t_k:
        raise ValueError("t_q must not exceed t_k")
    if window is not None and window < 1:
        raise ValueError("window must be at least 1")
    blocked = _causal(t_q, t_k, device)
    if window is not None:
        blocked = blocked | torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(t_k - t_q - window)
    return blocked
