# expect: wrong_answer
# mistake: the device argument is ignored, so the mask is always built on the CPU and the caller's masked_fill on another device fails
# message: device
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
    offset = t_k - t_q
    blocked = torch.ones(t_q, t_k, dtype=torch.bool).triu(offset + 1)
    if window is not None:
        blocked |= torch.ones(t_q, t_k, dtype=torch.bool).tril(offset - window)
    return blocked
