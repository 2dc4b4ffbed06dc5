# expect: wrong_answer
# message: sqrt(head_dim)
# fails-on: prefill-then-decode
# Forgets the 1 / sqrt(head_dim) of scaled dot-product attention: the softmax comes out far too peaked.
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
        scores = q @ keys.transpose(-1, -2)
        blocked = torch.ones(t, end, dtype=torch.bool, device=q.device).triu(end - t + 1)
        return scores.masked_fill(blocked, float("-inf")).softmax(-1) @ values
