# expect: wrong_answer
# message: offset
# fails-on: offset-decode-float64
# Positions always start at 0: right for a prefill, but a decode step's tokens come after the cached ones,
# so every new token is rotated as if it were the first token of the sequence.
import torch


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rope(q, k, offset=0, base=10000.0):
    seq, dim = q.shape[-2:]
    dtype = torch.promote_types(q.dtype, torch.float32)
    inv_freq = 1.0 / base ** (torch.arange(0, dim, 2, dtype=dtype, device=q.device) / dim)
    angles = torch.outer(torch.arange(seq, dtype=dtype, device=q.device), inv_freq).repeat(1, 2)
    cos, sin = angles.cos(), angles.sin()
    return (q * cos + rotate_half(q) * sin).to(q.dtype), (k * cos + rotate_half(k) * sin).to(k.dtype)
