# expect: accepted
# The scale as amax times the reciprocal of q, 1/q rounded to float32 first, rather than amax / q: equal in
# exact arithmetic, a float32 rounding unit apart for some groups' amax (what the scales' tolerance of 2^-21
# allows). The codes divide each group by that scale and round half to even; 4-bit codes are packed as
# two's-complement nibbles, entry 2j low, and sign-extended on the way back by subtracting 16 from 8 and up.
import torch


def quantize(w, group_size, bits=8):
    q = 2 ** (bits - 1) - 1
    groups = w.float().unflatten(-1, (-1, group_size))
    amax = groups.abs().amax(dim=-1, keepdim=True)
    scales = amax * torch.tensor(1.0 / q, dtype=torch.float32, device=w.device)
    safe = torch.where(scales > 0, scales, torch.ones_like(scales))
    codes = torch.round(groups / safe).clamp(-q, q).flatten(-2).to(torch.int8)
    if bits == 4:
        nibbles = codes.to(torch.uint8) & 0xF
        codes = nibbles[..., 0::2] | (nibbles[..., 1::2] << 4)
    return codes, scales.squeeze(-1)


def dequantize(codes, scales, group_size, bits=8):
    if bits == 4:
        nibbles = torch.stack([codes & 0xF, codes >> 4], dim=-1).flatten(-2).to(torch.int16)
        codes = torch.where(nibbles >= 8, nibbles - 16, nibbles)
    groups = codes.float().unflatten(-1, (-1, group_size))
    return (groups * scales.unsqueeze(-1)).flatten(-2)
