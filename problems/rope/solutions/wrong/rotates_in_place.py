# expect: wrong_answer
# message: in place
# fails-on: llama-layout-float32
# Rotates q and k where they lie to save memory, as fused inference kernels do: the caller's q and k are gone.
import torch


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    dtype = torch.promote_types(q.dtype, torch.float32)
    inv_freq = 1.0 / base ** (torch.arange(0, dim, 2, dtype=dtype, device=q.device) / dim)
    angles = torch.outer(torch.arange(offset, offset + seq, dtype=dtype, device=q.device), inv_freq)
    cos, sin = angles.cos().to(q.dtype), angles.sin().to(q.dtype)
    for x in (q, k):
        x1, x2 = x[..., : dim // 2].clone(), x[..., dim // 2:].clone()
        x[..., : dim // 2] = x1 * cos - x2 * sin
        x[..., dim // 2:] = x2 * cos + x1 * sin
    return q, k
