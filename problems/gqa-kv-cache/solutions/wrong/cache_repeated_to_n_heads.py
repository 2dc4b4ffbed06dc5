# expect: wrong_answer
# message: n_kv_heads heads only
# fails-on: prefill-then-decode
# Repeats the key/value heads to n_heads before caching them: the outputs are right, but the cache is
# n_heads / n_kv_heads times larger, which throws away the whole point of grouped-query attention.
import torch
from torch import nn


class GQAKVCache(nn.Module):
    def __init__(self, batch, n_heads, n_kv_heads, head_dim, max_seq):
        super().__init__()
        self.group = n_heads // n_kv_heads
        self.register_buffer("k_cache", torch.zeros(batch, n_heads, max_seq, head_dim))
        self.register_buffer("v_cache", torch.zeros(batch, n_heads, max_seq, head_dim))
        self.length = 0

    def forward(self, q, k, v):
        t, end = q.shape[2], self.length + q.shape[2]
        self.k_cache[:, :, self.length:end] = torch.repeat_interleave(k, self.group, dim=1)
        self.v_cache[:, :, self.length:end] = torch.repeat_interleave(v, self.group, dim=1)
        self.length = end
        scores = q @ self.k_cache[:, :, :end].transpose(-1, -2) / q.shape[-1] ** 0.5
        blocked = torch.ones(t, end, dtype=torch.bool, device=q.device).triu(end - t + 1)
        return scores.masked_fill(blocked, float("-inf")).softmax(-1) @ self.v_cache[:, :, :end]
