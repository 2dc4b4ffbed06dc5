# expect: wrong_answer
# message: float64
# fails-on: offset-decode-float64
# A float32 frequency buffer, as many modules register it, used whatever the input's dtype: a float32 angle is
# off by about 1e-7 radians at position 5 and 1e-3 at position 20000, far more than float64 inputs allow.
import torch


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    inv_freq = 1.0 / base ** (torch.arange(0, dim, 2, dtype=torch.float32, device=q.device) / dim)
    positions = torch.arange(offset, offset + seq, dtype=torch.float32, device=q.device)
    angles = torch.outer(positions, inv_freq).repeat(1, 2)
    cos, sin = angles.cos().to(q.dtype), angles.sin().to(q.dtype)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
