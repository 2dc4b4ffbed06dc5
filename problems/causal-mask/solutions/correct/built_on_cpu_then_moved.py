# expect: accepted
# style: raises a ValueError subclass of its own naming every bad argument, builds the mask on the CPU from broadcast positions, and moves it once to the device asked for (torch's default device when none is)
import torch


class MaskArgumentError(ValueError):
    """Arguments no mask exists for; a ValueError, so callers catching that catch this too."""


def causal_mask(
    t_q: int, t_k: int | None = None, *, window: int | None = None, device=None
) -> torch.Tensor:
    t_k = t_q if t_k is None else t_k
    problems = []
    if t_q > t_k:
        problems.append(f"t_q={t_q} > t_k={t_k}")
    if window is not None and window < 1:
        problems.append(f"window={window} < 1")
    if problems:
        raise MaskArgumentError("; ".join(problems))
    position = torch.arange(t_k - t_q, t_k, device="cpu").unsqueeze(1)
    key = torch.arange(t_k, device="cpu")
    blocked = key > position
    if window is not None:
        blocked |= key <= position - window
    return blocked.to(torch.get_default_device() if device is None else torch.device(device))
