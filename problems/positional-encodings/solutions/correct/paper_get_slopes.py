# expect: accepted
# The ALiBi paper's get_slopes as published (recursive for the extras), the Annotated Transformer's div_term made
# safe for odd d_model, and the bias from a causal mask with its diagonal shifted by t_k - t_q.
import math

import torch


def sinusoidal_encoding(seq_len, d_model, offset=0, *, dtype=torch.float32, device=None):
    pe = torch.zeros(seq_len, d_model, dtype=dtype, device=device)
    position = torch.arange(0, seq_len, dtype=dtype, device=device).unsqueeze(1) + offset
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=dtype, device=device) * -(math.log(10000.0) / d_model))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term[: d_model // 2])
    return pe


def get_slopes(n):
    def get_slopes_power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        ratio = start
        return [start * ratio ** i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return get_slopes_power_of_2(closest_power_of_2) + get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]


def alibi_slopes(n_heads, *, dtype=torch.float32, device=None):
    return torch.tensor(get_slopes(n_heads), dtype=dtype, device=device)


def alibi_bias(n_heads, t_q, t_k, *, dtype=torch.float32, device=None):
    future = torch.ones(t_q, t_k, dtype=torch.bool, device=device).triu(diagonal=t_k - t_q + 1)
    query = torch.arange(t_k - t_q, t_k, dtype=dtype, device=device)
    key = torch.arange(t_k, dtype=dtype, device=device)
    distance = query[:, None] - key[None, :]
    bias = alibi_slopes(n_heads, dtype=dtype, device=device)[:, None, None] * -distance
    return bias.masked_fill(future, float("-inf"))
