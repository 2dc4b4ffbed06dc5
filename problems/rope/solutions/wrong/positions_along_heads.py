# expect: wrong_answer
# message: (batch, n_heads, seq, head_dim)
# fails-on: llama-layout-float32
# Written for the (batch, seq, heads, head_dim) layout a projection produces before the transpose: the
# positions are read along axis 1, which here is the heads axis, so every head gets its index as position.
import torch


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rotate(x, offset, base):
    seq, dim = x.shape[1], x.shape[-1]
    dtype = torch.promote_types(x.dtype, torch.float32)
    inv_freq = 1.0 / base ** (torch.arange(0, dim, 2, dtype=dtype, device=x.device) / dim)
    positions = torch.arange(offset, offset + seq, dtype=dtype, device=x.device)
    angles = torch.outer(positions, inv_freq).repeat(1, 2)[None, :, None, :]
    return (x * angles.cos() + rotate_half(x) * angles.sin()).to(x.dtype)


def apply_rope(q, k, offset=0, base=10000.0):
    return rotate(q, offset, base), rotate(k, offset, base)
