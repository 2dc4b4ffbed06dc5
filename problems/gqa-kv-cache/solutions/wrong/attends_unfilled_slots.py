# expect: wrong_answer
# message: unfilled cache slot
# fails-on: prefill-then-decode
# A decode step attends to the whole preallocated buffer: the slots after the filled length hold zeros, whose
# scores are 0, not -inf, so they take a share of the softmax and pull the output towards zero.
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
        keys = torch.repeat_interleave(self.k_cache, self.group, dim=1)
        values = torch.repeat_interleave(self.v_cache, self.group, dim=1)
        scores = q @ keys.transpose(-1, -2) / q.shape[-1] ** 0.5
        if t > 1:
            positions = torch.arange(end - t, end, device=q.device)[:, None]
            scores = scores.masked_fill(torch.arange(keys.shape[2], device=q.device) > positions, float("-inf"))
        return scores.softmax(-1) @ values
