# expect: accepted
# style: a Python loop over query rows, opening each row's visible span of keys with one slice assignment
import torch


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    if t_k is None:
        t_k = t_q
    if t_q > t_k:
        raise ValueError(f"cannot place {t_q} queries after {t_k} keys")
    if window is not None and window < 1:
        raise ValueError("window must be positive")
    blocked = torch.ones(t_q, t_k, dtype=torch.bool, device=device)
    for row in range(t_q):
        position = t_k - t_q + row
        first_visible = 0 if window is None else max(0, position - window + 1)
        blocked[row, first_visible : position + 1] = False
    return blocked
