# expect: wrong_answer
# mistake: the window is validated with `if window and window < 1`, and 0 is falsy: window=0 slips through and yields a mask that blocks every key, instead of a ValueError
# message: ValueError
import torch


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    if t_k is None:
        t_k = t_q
    if t_q > t_k:
        raise ValueError("t_q must not exceed t_k")
    if window and window < 1:
        raise ValueError("window must be at least 1")
    offset = t_k - t_q
    blocked = torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(offset + 1)
    if window is not None:
        blocked |= torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(offset - window)
    return blocked
