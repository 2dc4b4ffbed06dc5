# expect: accepted
# The rotation written as what it is: a 2x2 matrix per (position, pair), applied with einsum to the head
# vector seen as (2, d/2), its two halves stacked.
import math

import torch


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    dtype = torch.promote_types(q.dtype, torch.float32)
    log_freq = -math.log(base) * torch.arange(0, dim, 2, dtype=dtype, device=q.device) / dim
    positions = torch.arange(offset, offset + seq, dtype=dtype, device=q.device)
    angles = torch.einsum("t,i->ti", positions, log_freq.exp())
    cos, sin = angles.cos(), angles.sin()
    rotation = torch.stack((torch.stack((cos, -sin)), torch.stack((sin, cos))))   # (2, 2, seq, dim / 2)

    def rotate(x):
        pairs = x.to(dtype).unflatten(-1, (2, dim // 2))                     # (..., seq, 2, dim / 2)
        return torch.einsum("abti,...tbi->...tai", rotation, pairs).flatten(-2).to(x.dtype)

    return rotate(q), rotate(k)
