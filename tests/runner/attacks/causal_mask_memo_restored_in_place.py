# expect: wrong_answer
# problem: causal-mask
# tests: all
# message: shares storage with the first result
# Memoises each mask and, before handing it out again, copies a pristine copy back into the same tensor: the
# later call's values are right, but a caller that edited the first mask in place (adding a padding mask)
# has that edit silently undone under it. The kit holds each later result to sharing no storage with an
# earlier one, not only to its values.
import torch

_masks = {}


def causal_mask(t_q, t_k=None, *, window=None, device=None):
    t_k = t_q if t_k is None else t_k
    if t_q > t_k or (window is not None and window < 1):
        raise ValueError("t_q must not exceed t_k and the window must be at least 1")
    key = (t_q, t_k, window, str(torch.get_default_device() if device is None else torch.device(device)))
    if key in _masks:
        mask, pristine = _masks[key]
        return mask.copy_(pristine)
    offset = t_k - t_q
    blocked = torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(offset + 1)
    if window is not None:
        blocked |= torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(offset - window)
    _masks[key] = (blocked, blocked.clone())
    return blocked
