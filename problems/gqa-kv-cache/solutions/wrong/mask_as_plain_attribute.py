# expect: wrong_answer
# mistake: the caches are buffers, but the causal mask is built once in __init__ and kept as a plain attribute:
# every output is right on the CPU, yet .to() never moves the mask and the cache's size does not count it
# message: outside the buffers
# fails-on: prefill-then-decode
import torch
from torch import nn


class GQAKVCache(nn.Module):
    def __init__(self, batch, n_heads, n_kv_heads, head_dim, max_seq):
        super().__init__()
        self.repeats, self.filled = n_heads // n_kv_heads, 0
        self.register_buffer("k_cache", torch.zeros(batch, n_kv_heads, max_seq, head_dim))
        self.register_buffer("v_cache", torch.zeros(batch, n_kv_heads, max_seq, head_dim))
        self.visible = torch.ones(max_seq, max_seq, dtype=torch.bool).tril()

    def forward(self, q, k, v):
        first, t = self.filled, q.shape[2]
        self.filled += t
        self.k_cache[:, :, first:self.filled], self.v_cache[:, :, first:self.filled] = k, v
        keys = self.k_cache[:, :, :self.filled].repeat_interleave(self.repeats, dim=1)
        values = self.v_cache[:, :, :self.filled].repeat_interleave(self.repeats, dim=1)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, keys) * q.shape[-1] ** -0.5
        scores = scores.masked_fill(~self.visible[first:self.filled, :self.filled], float("-inf"))
        return torch.einsum("bhqk,bhkd->bhqd", scores.softmax(dim=-1), values)
