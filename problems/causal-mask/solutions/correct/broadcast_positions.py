# expect: accepted
# style: compares broadcast query and key position aranges, so the mask reads exactly like its definition
import torch


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    t_k = t_q if t_k is None else t_k
    if t_q > t_k:
        raise ValueError(f"t_q={t_q} exceeds t_k={t_k}")
    if window is not None and window < 1:
        raise ValueError(f"window={window} is below 1")
    query_pos = torch.arange(t_k - t_q, t_k, device=device)[:, None]
    key_pos = torch.arange(t_k, device=device)[None, :]
    blocked = key_pos > query_pos
    if window is not None:
        blocked |= key_pos <= query_pos - window
    return blocked
