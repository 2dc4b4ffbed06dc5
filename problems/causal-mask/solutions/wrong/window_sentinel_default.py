# expect: runtime_error
# mistake: "no window" is a huge default instead of None, so a caller passing window=None explicitly (as the interface allows) gets a TypeError from the comparison with 1
# message: TypeError
import sys

import torch


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int = sys.maxsize, device=None
) -> torch.Tensor:
    if t_k is None:
        t_k = t_q
    if t_q > t_k:
        raise ValueError("t_q must not exceed t_k")
    if window < 1:
        raise ValueError("window must be at least 1")
    offset = t_k - t_q
    blocked = torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(offset + 1)
    if window < t_k:
        blocked |= torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(offset - window)
    return blocked
