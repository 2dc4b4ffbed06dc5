# expect: forbidden
# message: aten::quantize_per_channel
# fails-on: int8-groups-of-16
# torch.quantize_per_channel over the rows of (groups, group_size) does the rounding and clamping in one call.
import torch


def quantize(w, group_size, bits=8):
    q = 2 ** (bits - 1) - 1
    groups = w.float().reshape(-1, group_size)
    scales = groups.abs().amax(dim=-1) / q
    safe = torch.where(scales == 0, 1.0, scales).double()
    zero = torch.zeros(len(scales), dtype=torch.long)
    codes = torch.quantize_per_channel(groups, safe, zero, 0, torch.qint8).int_repr().clamp(-q, q).reshape(w.shape)
    if bits == 4:
        nibbles = codes.to(torch.uint8) & 0xF
        codes = nibbles[..., 0::2] | (nibbles[..., 1::2] << 4)
    return codes, scales.reshape(*w.shape[:-1], -1)


def dequantize(codes, scales, group_size, bits=8):
    if bits == 4:
        nibbles = torch.stack([codes & 0xF, codes >> 4], dim=-1).flatten(-2).to(torch.int16)
        codes = torch.where(nibbles >= 8, nibbles - 16, nibbles)
    return (codes.float().unflatten(-1, (-1, group_size)) * scales.unsqueeze(-1)).flatten(-2)
