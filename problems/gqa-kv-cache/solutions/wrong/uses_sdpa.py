# expect: forbidden
# message: scaled_dot_product
# fails-on: prefill-then-decode
import torch
import torch.nn.functional as F
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
        mask = torch.ones(t, end, dtype=torch.bool, device=q.device).tril(end - t)
        return F.scaled_dot_product_attention(q, self.k_cache[:, :, :end], self.v_cache[:, :, :end],
                                              attn_mask=mask, enable_gqa=True)
