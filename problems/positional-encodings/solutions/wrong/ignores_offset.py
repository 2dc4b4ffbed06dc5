# expect: wrong_answer
# mistake: the positions start at 0 whatever the offset, so a decode step gets the encodings of the first tokens again
# message: row t is position offset + t
# fails-on: decode-offset-six-heads
import math

import torch


def sinusoidal_encoding(seq_len, d_model, offset=0, *, dtype=torch.float32, device=None):
    position = torch.arange(seq_len, dtype=dtype, device=device)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=dtype, device=device)  # 2i of every even column
    angles = position * torch.exp(two_i * (-math.log(10000.0) / d_model))
    pe = torch.empty(seq_len, d_model, dtype=dtype, device=device)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles[:, : d_model // 2])  # odd d_model: the last column is a sin without its cos
    return pe


def _power_of_two_slopes(n):
    return [2.0 ** (-8.0 * k / n) for k in range(1, n + 1)]


def alibi_slopes(n_heads, *, dtype=torch.float32, device=None):
    closest = 2 ** int(math.floor(math.log2(n_heads)))
    slopes = _power_of_two_slopes(closest) + _power_of_two_slopes(2 * closest)[0::2][: n_heads - closest]
    return torch.tensor(slopes, dtype=dtype, device=device)


def alibi_bias(n_heads, t_q, t_k, *, dtype=torch.float32, device=None):
    query = torch.arange(t_k - t_q, t_k, device=device)[:, None]  # the queries are the last t_q positions
    key = torch.arange(t_k, device=device)[None, :]
    bias = -alibi_slopes(n_heads, dtype=dtype, device=device)[:, None, None] * (query - key).to(dtype)
    return bias.masked_fill(key > query, float("-inf"))
