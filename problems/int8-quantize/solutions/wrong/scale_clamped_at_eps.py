# expect: wrong_answer
# message: epsilon
# fails-on: all-zero-groups
# Guards the division with amax.clamp(min=1e-5), as some open-source quantizers do: no NaN, but an all-zero
# group then gets a tiny non-zero scale, where the pinned format (and its round trip) has scale 0.
import torch


def quantize(w: torch.Tensor, group_size: int, bits: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    q = 2 ** (bits - 1) - 1
    groups = w.float().unflatten(-1, (-1, group_size))            # (..., n // group_size, group_size)
    scales = groups.abs().amax(dim=-1, keepdim=True).clamp(min=1e-5) / q
    codes = torch.round(groups / scales).clamp(-q, q)
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
