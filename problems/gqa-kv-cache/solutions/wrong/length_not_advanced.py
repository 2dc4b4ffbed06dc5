# expect: wrong_answer
# message: the cache length advances
# fails-on: prefill-then-decode
# Writes each call's keys and values at the cache's start and never advances the length: every call
# overwrites the last one and attends only to its own tokens, so a decode step sees nothing but itself.
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
        t = q.shape[2]
        self.k_cache[:, :, :t] = k
        self.v_cache[:, :, :t] = v
        keys = torch.repeat_interleave(self.k_cache[:, :, :t], self.group, dim=1)
        values = torch.repeat_interleave(self.v_cache[:, :, :t], self.group, dim=1)
        scores = q @ keys.transpose(-1, -2) / q.shape[-1] ** 0.5
        blocked = torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1)
        return scores.masked_fill(blocked, float("-inf")).softmax(-1) @ values
