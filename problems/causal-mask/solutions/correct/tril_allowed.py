# expect: accepted
# style: builds the allowed band with tril (the "True = may attend" convention of SDPA) and inverts it at the end
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
    ones = torch.ones(t_q, t_k, dtype=torch.bool, device=device)
    offset = t_k - t_q
    allowed = torch.tril(ones, diagonal=offset)
    if window is not None:
        allowed &= torch.triu(ones, diagonal=offset - window + 1)
    return ~allowed
