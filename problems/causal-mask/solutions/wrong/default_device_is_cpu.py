# expect: wrong_answer
# mistake: device=None is read as "the CPU", not as torch's default device, so a model that set its default device (torch.set_default_device, `with torch.device(...)`) gets its masks on the wrong device
# message: default device
import torch


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    device = torch.device("cpu" if device is None else device)
    if t_k is None:
        t_k = t_q
    if t_q > t_k:
        raise ValueError("t_q must not exceed t_k")
    if window is not None and window < 1:
        raise ValueError("window must be at least 1")
    query = torch.arange(t_k - t_q, t_k, device=device)[:, None]
    key = torch.arange(t_k, device=device)[None, :]
    blocked = key > query
    if window is not None:
        blocked |= key <= query - window
    return blocked
