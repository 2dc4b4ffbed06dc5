# expect: wrong_answer
# mistake: the early return for the plain causal mask builds it without the device argument, so only masks with a window land on the requested device
# message: requested device
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
    if window is None:
        return torch.ones(t_q, t_k, dtype=torch.bool).triu(offset + 1)
    blocked = torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(offset + 1)
    blocked |= torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(offset - window)
    return blocked
