# expect: accepted
# A loop over key/value heads: each one attends its own contiguous group of query heads with einsum, and the
# softmax is written out (maximum subtracted). The length counter is an integer buffer.
import torch
from torch import nn


class GQAKVCache(nn.Module):
    def __init__(self, batch, n_heads, n_kv_heads, head_dim, max_seq):
        super().__init__()
        self.n_kv_heads, self.group = n_kv_heads, n_heads // n_kv_heads
        self.register_buffer("cache", torch.zeros(2, batch, n_kv_heads, max_seq, head_dim))
        self.register_buffer("filled", torch.zeros((), dtype=torch.long))

    def forward(self, q, k, v):
        t, head_dim = q.shape[2], q.shape[3]
        start = int(self.filled)
        end = start + t
        self.cache[0, :, :, start:end].copy_(k)
        self.cache[1, :, :, start:end].copy_(v)
        self.filled += t
        key_pos = torch.arange(end, device=q.device)
        query_pos = torch.arange(start, end, device=q.device)
        allowed = key_pos[None, :] <= query_pos[:, None]                              # (t, end)
        outs = []
        for kv in range(self.n_kv_heads):
            queries = q[:, kv * self.group:(kv + 1) * self.group]                      # (batch, group, t, d)
            keys, values = self.cache[0, :, kv, :end], self.cache[1, :, kv, :end]      # (batch, end, d)
            scores = torch.einsum("bgtd,bsd->bgts", queries, keys) * head_dim ** -0.5
            scores = scores.masked_fill(~allowed, float("-inf"))
            e = (scores - scores.amax(dim=-1, keepdim=True)).exp()
            outs.append(torch.einsum("bgts,bsd->bgtd", e / e.sum(dim=-1, keepdim=True), values))
        return torch.cat(outs, dim=1)
