import torch


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """(x1, x2) -> (-x2, x1) over the two halves of the last axis: each coordinate meets its pair partner."""
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rope(q: torch.Tensor, k: torch.Tensor, offset: int = 0,
               base: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    seq, dim = q.shape[-2], q.shape[-1]
    # Positions above 256 are not integers in bfloat16: the angles are computed in float32 at least.
    dtype = torch.promote_types(q.dtype, torch.float32)
    inv_freq = base ** (-torch.arange(0, dim, 2, dtype=dtype, device=q.device) / dim)
    positions = torch.arange(offset, offset + seq, dtype=dtype, device=q.device)
    angles = torch.outer(positions, inv_freq)          # (seq, dim / 2): m * theta_i
    angles = torch.cat((angles, angles), dim=-1)       # pair i is (x[i], x[i + dim / 2])
    cos, sin = angles.cos(), angles.sin()
    q_rot = q * cos + rotate_half(q) * sin
    k_rot = k * cos + rotate_half(k) * sin
    return q_rot.to(q.dtype), k_rot.to(k.dtype)
