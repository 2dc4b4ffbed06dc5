# expect: wrong_answer
# message: no mask among a call's new tokens
# fails-on: float64-chunk-after-prefill
# Masks only the prefill, reasoning that a decode step's single token may see the whole cache. True for t = 1,
# but a chunk of several tokens after the prefill (chunked prefill, speculative decoding) lets each new token
# see the ones after it.
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
        prefill = self.length == 0
        self.k_cache[:, :, self.length:end] = k
        self.v_cache[:, :, self.length:end] = v
        self.length = end
        keys = torch.repeat_interleave(self.k_cache[:, :, :end], self.group, dim=1)
        values = torch.repeat_interleave(self.v_cache[:, :, :end], self.group, dim=1)
        scores = q @ keys.transpose(-1, -2) / q.shape[-1] ** 0.5
        if prefill:
            scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
        return scores.softmax(-1) @ values
