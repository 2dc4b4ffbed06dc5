# expect: wrong_answer
# message: bfloat16
# fails-on: bfloat16-past-position-1000
# Positions and frequencies made in the input's dtype. In float32 that is fine; in bfloat16, with 8 bits of
# mantissa, positions above 256 are rounded to multiples of 2, 4, 8..., so neighbouring tokens share angles.
import torch


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    inv_freq = 1.0 / base ** (torch.arange(0, dim, 2, dtype=q.dtype, device=q.device) / dim)
    positions = torch.arange(offset, offset + seq, dtype=q.dtype, device=q.device)
    angles = torch.outer(positions, inv_freq).repeat(1, 2)
    cos, sin = angles.cos(), angles.sin()
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
