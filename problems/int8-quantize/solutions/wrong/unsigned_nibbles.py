# expect: wrong_answer
# message: unsigned
# fails-on: int4-groups-of-16
# Unpacks each nibble with & 0xF and >> 4 and stops there: negative codes come back as 9 to 15 instead of
# -7 to -1, so every negative weight dequantizes to a large positive one.
import torch


def quantize(w: torch.Tensor, group_size: int, bits: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    q = 2 ** (bits - 1) - 1
    groups = w.float().unflatten(-1, (-1, group_size))            # (..., n // group_size, group_size)
    scales = groups.abs().amax(dim=-1, keepdim=True) / q
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
        codes = nibbles
    groups = codes.float().unflatten(-1, (-1, group_size))
    return (groups * scales.unsqueeze(-1)).flatten(-2)
