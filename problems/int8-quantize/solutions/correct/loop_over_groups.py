# expect: accepted
# One group at a time: a Python loop over the n // group_size column blocks, each quantized with
# torch.round on its own slice; the 4-bit codes are packed and unpacked with a lookup of each byte's halves.
import torch


def quantize(w, group_size, bits=8):
    q = 2 ** (bits - 1) - 1
    n = w.shape[-1]
    codes = torch.empty(w.shape, dtype=torch.int8, device=w.device)
    scales = torch.empty((*w.shape[:-1], n // group_size), dtype=torch.float32, device=w.device)
    for g, start in enumerate(range(0, n, group_size)):
        block = w[..., start:start + group_size].float()
        scale = block.abs().amax(dim=-1) / q
        scales[..., g] = scale
        safe = torch.where(scale > 0, scale, torch.ones_like(scale)).unsqueeze(-1)
        codes[..., start:start + group_size] = torch.round(block / safe).to(torch.int8)
    if bits == 4:
        unsigned = torch.where(codes < 0, codes.to(torch.int16) + 16, codes.to(torch.int16))
        packed = unsigned[..., ::2] | unsigned[..., 1::2] * 16
        return packed.to(torch.uint8), scales
    return codes, scales


def dequantize(codes, scales, group_size, bits=8):
    if bits == 4:
        table = torch.tensor([0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1], device=codes.device)
        pairs = torch.stack([table[(codes & 15).long()], table[(codes >> 4).long()]], dim=-1)
        codes = pairs.flatten(-2)
    out = torch.empty(codes.shape, dtype=torch.float32, device=codes.device)
    for g, start in enumerate(range(0, codes.shape[-1], group_size)):
        out[..., start:start + group_size] = codes[..., start:start + group_size].float() * scales[..., g:g + 1]
    return out
