# expect: wrong_answer
# message: repeat()
# fails-on: prefill-then-decode
# Repeats the key/value heads with Tensor.repeat, which tiles them (0, 1, 0, 1, ...): query head h then
# uses key/value head h % n_kv_heads, where the checkpoint's grouping is h // (n_heads // n_kv_heads).
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
        keys = self.k_cache[:, :, :end].repeat(1, self.group, 1, 1)
        values = self.v_cache[:, :, :end].repeat(1, self.group, 1, 1)
        scores = q @ keys.transpose(-1, -2) / q.shape[-1] ** 0.5
        blocked = torch.ones(t, end, dtype=torch.bool, device=q.device).triu(end - t + 1)
        return scores.masked_fill(blocked, float("-inf")).softmax(-1) @ values
