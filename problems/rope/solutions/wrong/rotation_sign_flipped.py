# expect: wrong_answer
# message: opposite direction
# fails-on: llama-layout-float32
# rotate_half written as cat((x2, -x1)): every pair turns by -m theta_i. Scores still depend only on m - n
# (a rotation either way is relative), so attention trains fine, but no checkpoint made with the standard
# layout works with it.
import torch


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((x2, -x1), dim=-1)


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    dtype = torch.promote_types(q.dtype, torch.float32)
    inv_freq = 1.0 / base ** (torch.arange(0, dim, 2, dtype=dtype, device=q.device) / dim)
    positions = torch.arange(offset, offset + seq, dtype=dtype, device=q.device)
    angles = torch.outer(positions, inv_freq).repeat(1, 2)
    cos, sin = angles.cos(), angles.sin()
    return (q * cos + rotate_half(q) * sin).to(q.dtype), (k * cos + rotate_half(k) * sin).to(k.dtype)
