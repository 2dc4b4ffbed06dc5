# expect: accepted
# Multiplies by q / amax instead of dividing by the scale, packs with arithmetic (low + 16 * high), and
# sign-extends each nibble with an int8 shift left then an arithmetic shift right.
import torch


def quantize(w, group_size, bits=8):
    q = 2 ** (bits - 1) - 1
    groups = w.to(torch.float32).reshape(*w.shape[:-1], w.shape[-1] // group_size, group_size)
    amax = groups.abs().max(dim=-1, keepdim=True).values
    inverse = torch.where(amax > 0, q / amax, torch.zeros_like(amax))
    codes = (groups * inverse).round().reshape(w.shape).to(torch.int16)
    if bits == 4:
        codes = codes % 16                                   # the low four bits of the two's complement
        codes = codes[..., 0::2] + 16 * codes[..., 1::2]
        return codes.to(torch.uint8), (amax / q).squeeze(-1)
    return codes.to(torch.int8), (amax / q).squeeze(-1)


def dequantize(codes, scales, group_size, bits=8):
    if bits == 4:
        signed = codes.view(torch.int8)
        low, high = (signed << 4) >> 4, signed >> 4            # >> on int8 is an arithmetic shift
        codes = torch.stack([low, high], dim=-1).reshape(*codes.shape[:-1], 2 * codes.shape[-1])
    per_entry = scales.repeat_interleave(group_size, dim=-1)
    return codes.to(torch.float32) * per_entry
