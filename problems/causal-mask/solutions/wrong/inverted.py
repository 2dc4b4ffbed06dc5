# expect: wrong_answer
# mistake: True marks the keys a query may see (the SDPA attn_mask convention), the opposite of the masked_fill convention asked for
# message: True
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
    visible = torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(offset)
    if window is not None:
        visible &= torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(offset - window + 1)
    return visible
