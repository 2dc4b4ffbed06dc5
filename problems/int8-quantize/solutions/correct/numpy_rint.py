# expect: accepted
# NumPy on the host: np.rint rounds half to even like torch.round, and np.where guards the all-zero groups.
# (No gradient is needed, so leaving torch is fine; the results go back to the input's device.)
import numpy as np
import torch


def quantize(w, group_size, bits=8):
    q = 2 ** (bits - 1) - 1
    x = w.detach().to("cpu", torch.float32).numpy()
    groups = x.reshape(*x.shape[:-1], -1, group_size)
    scales = np.abs(groups).max(axis=-1, keepdims=True) / np.float32(q)
    with np.errstate(invalid="ignore", divide="ignore"):
        codes = np.where(scales > 0, np.rint(groups / scales), 0).astype(np.int8).reshape(x.shape)
    if bits == 4:
        nibbles = codes.view(np.uint8) & np.uint8(0x0F)
        codes = nibbles[..., 0::2] | (nibbles[..., 1::2] << np.uint8(4))
    codes = torch.from_numpy(np.ascontiguousarray(codes)).to(w.device)
    return codes, torch.from_numpy(np.ascontiguousarray(scales[..., 0])).to(w.device)


def dequantize(codes, scales, group_size, bits=8):
    c = codes.to("cpu").numpy()
    if bits == 4:
        low = (c & 0x0F).astype(np.int8)
        high = (c >> 4).astype(np.int8)
        c = np.stack([low, high], axis=-1).reshape(*c.shape[:-1], -1)
        c = np.where(c >= 8, c - 16, c).astype(np.int8)
    s = scales.to("cpu").numpy()
    out = c.reshape(*c.shape[:-1], -1, group_size).astype(np.float32) * s[..., None]
    return torch.from_numpy(np.ascontiguousarray(out.reshape(c.shape))).to(codes.device)
