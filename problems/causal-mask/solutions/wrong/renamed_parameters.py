# expect: runtime_error
# mistake: the parameters are renamed (q_len, kv_len), so a caller who passes them by the interface's names, t_q= and t_k=, gets a TypeError
# message: TypeError
import torch


def causal_mask(
    q_len: int, kv_len: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    if kv_len is None:
        kv_len = q_len
    if q_len > kv_len:
        raise ValueError("q_len must not exceed kv_len")
    if window is not None and window < 1:
        raise ValueError("window must be at least 1")
    offset = kv_len - q_len
    blocked = torch.ones(q_len, kv_len, dtype=torch.bool, device=device).triu(offset + 1)
    if window is not None:
        blocked |= torch.ones(q_len, kv_len, dtype=torch.bool, device=device).tril(offset - window)
    return blocked
