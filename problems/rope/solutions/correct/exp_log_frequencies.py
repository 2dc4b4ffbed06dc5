# expect: accepted
# The frequencies as exp(-2i/d · ln base), the way sinusoidal position tables are often built, rather than as a
# power: equal in exact arithmetic, different in the last bits. At the last position, 32767, those bits are
# multiplied by the position, so this formula and the power differ by thousands of float64 rounding units of the
# output; the tolerance grows with the position for that reason. Each half rotated by the formula as written.
import math

import torch


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    dtype = torch.float64 if q.dtype == torch.float64 else torch.float32
    inv_freq = torch.exp(torch.arange(0, dim, 2, dtype=dtype, device=q.device) * (-math.log(base) / dim))
    angles = torch.arange(offset, offset + seq, dtype=dtype, device=q.device)[:, None] * inv_freq[None, :]
    cos, sin = angles.cos(), angles.sin()

    def rotate(x):
        x1, x2 = x.to(dtype).chunk(2, dim=-1)
        return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1).to(x.dtype)

    return rotate(q), rotate(k)
