# expect: memory_limit_exceeded
# fails-on: memory-head-dim-256
# The paper's formula taken literally: a block-diagonal d x d rotation matrix per position, applied with a
# matmul. Right, but it holds seq * d * d numbers where seq * d suffice.
import torch


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    half = dim // 2
    dtype = torch.promote_types(q.dtype, torch.float32)
    inv_freq = 1.0 / base ** (torch.arange(0, dim, 2, dtype=dtype, device=q.device) / dim)
    angles = torch.outer(torch.arange(offset, offset + seq, dtype=dtype, device=q.device), inv_freq)
    cos, sin = angles.cos(), angles.sin()
    rotation = torch.zeros(seq, dim, dim, dtype=dtype, device=q.device)
    index = torch.arange(half, device=q.device)
    rotation[:, index, index] = cos
    rotation[:, index + half, index + half] = cos
    rotation[:, index, index + half] = -sin
    rotation[:, index + half, index] = sin
    return ((rotation @ q.to(dtype).unsqueeze(-1)).squeeze(-1).to(q.dtype),
            (rotation @ k.to(dtype).unsqueeze(-1)).squeeze(-1).to(k.dtype))
