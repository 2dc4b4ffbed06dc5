# expect: wrong_answer
# mistake: arguments are checked with assert: that raises AssertionError, not the ValueError of the interface, and python -O strips it
# message: ValueError
import torch


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    if t_k is None:
        t_k = t_q
    assert t_q <= t_k, "t_q must not exceed t_k"
    assert window is None or window >= 1, "window must be at least 1"
    offset = t_k - t_q
    blocked = torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(offset + 1)
    if window is not None:
        blocked |= torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(offset - window)
    return blocked
