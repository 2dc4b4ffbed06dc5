# expect: wrong_answer
# mistake: arguments are never validated: t_q > t_k or window < 1 silently return a mask instead of raising ValueError
# message: ValueError
import torch


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    if t_k is None:
        t_k = t_q
    offset = t_k - t_q
    blocked = torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(offset + 1)
    if window is not None:
        blocked |= torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(offset - window)
    return blocked
