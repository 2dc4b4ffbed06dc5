# expect: accepted
# Position divided by 10000^(2i/d) (the paper's way of writing it), a Python loop over the pairs and one over the
# heads, and the bias built one head at a time with tril.
import math

import torch


def sinusoidal_encoding(seq_len, d_model, offset=0, *, dtype=torch.float32, device=None):
    position = torch.arange(seq_len, dtype=dtype, device=device) + offset
    pe = torch.empty(seq_len, d_model, dtype=dtype, device=device)
    for two_i in range(0, d_model, 2):
        angle = position / (10000.0 ** (two_i / d_model))
        pe[:, two_i] = torch.sin(angle)
        if two_i + 1 < d_model:
            pe[:, two_i + 1] = torch.cos(angle)
    return pe


def alibi_slopes(n_heads, *, dtype=torch.float32, device=None):
    closest = 2 ** int(math.log2(n_heads))
    slopes = []
    for h in range(n_heads):
        if h < closest:
            slopes.append(2.0 ** (-8.0 * (h + 1) / closest))
        else:
            slopes.append(2.0 ** (-8.0 * (2 * (h - closest) + 1) / (2 * closest)))
    return torch.tensor(slopes, dtype=dtype, device=device)


def alibi_bias(n_heads, t_q, t_k, *, dtype=torch.float32, device=None):
    shift = t_k - t_q
    distance = (torch.arange(t_q, device=device)[:, None] + shift - torch.arange(t_k, device=device)).to(dtype)
    allowed = torch.ones(t_q, t_k, dtype=torch.bool, device=device).tril(diagonal=shift)
    slopes = alibi_slopes(n_heads, dtype=dtype, device=device)
    heads = []
    for h in range(n_heads):
        heads.append(torch.where(allowed, -slopes[h] * distance, torch.full_like(distance, -math.inf)))
    return torch.stack(heads)
