# expect: accepted
# Separate key and value buffers; the shared heads as expand() views (no copy) reshaped to n_heads only for
# the matmul, and the mask taken as a slice of one lower-triangular matrix of the whole cache.
import torch
from torch import nn


class GQAKVCache(nn.Module):
    def __init__(self, batch, n_heads, n_kv_heads, head_dim, max_seq):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.length = n_heads, n_kv_heads, 0
        self.register_buffer("k_cache", torch.zeros(batch, n_kv_heads, max_seq, head_dim), persistent=False)
        self.register_buffer("v_cache", torch.zeros(batch, n_kv_heads, max_seq, head_dim), persistent=False)

    def _shared(self, cache, end):
        b, kv, _, d = cache.shape
        return cache[:, :, None, :end].expand(b, kv, self.n_heads // kv, end, d)

    def forward(self, q, k, v):
        b, h, t, d = q.shape
        start, end = self.length, self.length + t
        self.k_cache[:, :, start:end] = k
        self.v_cache[:, :, start:end] = v
        self.length = end
        q5 = q.view(b, self.n_kv_heads, h // self.n_kv_heads, t, d) if q.is_contiguous() else \
            q.reshape(b, self.n_kv_heads, h // self.n_kv_heads, t, d)
        scores = torch.einsum("bkgtd,bkgsd->bkgts", q5, self._shared(self.k_cache, end)) / d ** 0.5
        causal = torch.ones(end, end, dtype=torch.bool, device=q.device).tril()[start:end]
        weights = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        out = torch.einsum("bkgts,bkgsd->bkgtd", weights, self._shared(self.v_cache, end))
        return out.reshape(b, h, t, d)
