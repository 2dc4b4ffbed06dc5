# expect: accepted
# Hugging Face's eager way: a cache that grows with torch.cat on every call (a DynamicCache kept in buffers),
# the key/value heads repeated to n_heads with repeat_interleave at attention time, an additive -inf mask.
import torch
from torch import nn


def repeat_kv(x, group):
    return x if group == 1 else torch.repeat_interleave(x, group, dim=1)


class GQAKVCache(nn.Module):
    def __init__(self, batch, n_heads, n_kv_heads, head_dim, max_seq):
        super().__init__()
        self.group = n_heads // n_kv_heads
        self.register_buffer("keys", torch.zeros(batch, n_kv_heads, 0, head_dim))
        self.register_buffer("values", torch.zeros(batch, n_kv_heads, 0, head_dim))

    def forward(self, q, k, v):
        self.keys = torch.cat((self.keys, k), dim=2)
        self.values = torch.cat((self.values, v), dim=2)
        t, length = q.shape[2], self.keys.shape[2]
        keys, values = repeat_kv(self.keys, self.group), repeat_kv(self.values, self.group)
        scores = torch.matmul(q, keys.transpose(2, 3)) / (q.shape[-1] ** 0.5)
        mask = torch.full((t, length), float("-inf"), dtype=q.dtype, device=q.device).triu(length - t + 1)
        weights = torch.softmax(scores + mask, dim=-1)
        return torch.matmul(weights, values)
