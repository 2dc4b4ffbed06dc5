# What solutions/wrong/angles_in_input_dtype.py computes on bfloat16 inputs, in a form the judge can run in
# float64: positions, frequencies, angles and their cosines and sines in bfloat16, the rotation exact.
import torch


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    inv_freq = 1.0 / base ** (torch.arange(0, dim, 2, dtype=torch.bfloat16) / dim)
    angles = torch.outer(torch.arange(offset, offset + seq, dtype=torch.bfloat16), inv_freq).repeat(1, 2)
    cos, sin = angles.cos().to(q.dtype), angles.sin().to(q.dtype)
    x1, x2, y1, y2 = *q.chunk(2, dim=-1), *k.chunk(2, dim=-1)
    return q * cos + torch.cat((-x2, x1), -1) * sin, k * cos + torch.cat((-y2, y1), -1) * sin
