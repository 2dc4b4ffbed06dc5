# expect: wrong_answer
# message: top-left corner
# fails-on: prefill-then-decode
# The causal mask of a square attention matrix, triu(ones(t, L), 1), reused when the t queries are the last
# of L positions: it is aligned to the top-left corner, so a decoded token sees only the first cached key
# (scaled_dot_product_attention's is_causal=True does the same when t < L).
import torch
from torch import nn


class GQAKVCache(nn.Module):
    def __init__(self, batch, n_heads, n_kv_heads, head_dim, max_seq):
        super().__init__()
        self.group = n_heads // n_kv_heads
        self.register_buffer("k_cache", torch.zeros(batch, n_kv_heads, max_seq, head_dim))
        self.register_buffer("v_cache", torch.zeros(batch, n_kv_heads, max_seq, head_dim))
        self.length = 0

    def forward(self, q, k, v):
        t, end = q.shape[2], self.length + q.shape[2]
        self.k_cache[:, :, self.length:end] = k
        self.v_cache[:, :, self.length:end] = v
        self.length = end
        keys = torch.repeat_interleave(self.k_cache[:, :, :end], self.group, dim=1)
        values = torch.repeat_interleave(self.v_cache[:, :, :end], self.group, dim=1)
        scores = q @ keys.transpose(-1, -2) / q.shape[-1] ** 0.5
        blocked = torch.ones(t, end, dtype=torch.bool, device=q.device).triu(1)
        return scores.masked_fill(blocked, float("-inf")).softmax(-1) @ values
