# expect: time_limit_exceeded
# fails-on: timed-prefill-and-decode
# Feeds the prompt through the cache one token at a time, as if every prompt token were a decode step: right,
# and no mask is ever needed, but the prefill becomes hundreds of small sequential calls instead of one.
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
        outs = []
        for i in range(q.shape[2]):
            end = self.length + 1
            self.k_cache[:, :, self.length:end] = k[:, :, i:i + 1]
            self.v_cache[:, :, self.length:end] = v[:, :, i:i + 1]
            self.length = end
            keys = torch.repeat_interleave(self.k_cache[:, :, :end], self.group, dim=1)
            values = torch.repeat_interleave(self.v_cache[:, :, :end], self.group, dim=1)
            scores = q[:, :, i:i + 1] @ keys.transpose(-1, -2) / q.shape[-1] ** 0.5
            outs.append(scores.softmax(-1) @ values)
        return torch.cat(outs, dim=2)
