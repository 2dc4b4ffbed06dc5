# expect: wrong_answer
# message: divid
# fails-on: int8-groups-of-16
# Uses int8's full magnitude, 128 = 2**(bits - 1), as the divisor: amax then maps to 128, which int8 cannot
# hold and is clamped to 127, and every other code is 127/128 of what the symmetric scheme gives.
import torch


def quantize(w: torch.Tensor, group_size: int, bits: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    q = 2 ** (bits - 1) - 1
    groups = w.float().unflatten(-1, (-1, group_size))            # (..., n // group_size, group_size)
    scales = groups.abs().amax(dim=-1, keepdim=True) / (q + 1)
    # An all-zero group has scale 0: divide by 1 there instead, so its codes are 0 rather than 0 / 0.
    codes = torch.round(groups / torch.where(scales == 0, 1.0, scales)).clamp(-q, q)
    codes = codes.flatten(-2).to(torch.int8)
    if bits == 4:
        nibbles = codes.to(torch.uint8) & 0xF                        # two's complement in the low four bits
        codes = nibbles[..., 0::2] | (nibbles[..., 1::2] << 4)       # entry 2j low, entry 2j + 1 high
    return codes, scales.squeeze(-1)


def dequantize(codes: torch.Tensor, scales: torch.Tensor, group_size: int, bits: int = 8) -> torch.Tensor:
    if bits == 4:
        nibbles = torch.stack([codes & 0xF, codes >> 4], dim=-1).flatten(-2).to(torch.int16)
        codes = torch.where(nibbles >= 8, nibbles - 16, nibbles)    # sign-extend each nibble
    groups = codes.float().unflatten(-1, (-1, group_size))
    return (groups * scales.unsqueeze(-1)).flatten(-2)
