# expect: accepted
# Everything in float64 and cast at the end; the frequencies as 10000 ** (-2i / d), the slopes from powers of two
# with torch, the bias as a lower-triangular distance matrix scaled per head.
import math

import torch


def sinusoidal_encoding(seq_len, d_model, offset=0, *, dtype=torch.float32, device=None):
    position = torch.arange(offset, offset + seq_len, dtype=torch.float64, device=device)
    pairs = (d_model + 1) // 2
    frequency = 10000.0 ** (-2.0 * torch.arange(pairs, dtype=torch.float64, device=device) / d_model)
    angles = torch.outer(position, frequency)
    pe = torch.stack((angles.sin(), angles.cos()), dim=-1).reshape(seq_len, 2 * pairs)[:, :d_model]
    return pe.to(dtype)


def alibi_slopes(n_heads, *, dtype=torch.float32, device=None):
    closest = 1 << (n_heads.bit_length() - 1)
    base = torch.arange(1, closest + 1, dtype=torch.float64, device=device)
    extra = 2 * torch.arange(n_heads - closest, dtype=torch.float64, device=device) + 1
    slopes = torch.cat((torch.exp2(-8.0 * base / closest), torch.exp2(-8.0 * extra / (2 * closest))))
    return slopes.to(dtype)


def alibi_bias(n_heads, t_q, t_k, *, dtype=torch.float32, device=None):
    rows = torch.arange(t_q, device=device)[:, None] + (t_k - t_q)
    distance = (rows - torch.arange(t_k, device=device)).to(torch.float64)
    bias = -alibi_slopes(n_heads, dtype=torch.float64, device=device).view(-1, 1, 1) * distance
    bias = torch.where(distance >= 0, bias, -math.inf)
    return bias.to(dtype)
