import torch
from torch import nn


class GQAKVCache(nn.Module):
    """Causal grouped-query attention over a preallocated cache of n_kv_heads key/value heads."""

    def __init__(self, batch: int, n_heads: int, n_kv_heads: int, head_dim: int, max_seq: int) -> None:
        super().__init__()
        self.group = n_heads // n_kv_heads
        self.register_buffer("k_cache", torch.zeros(batch, n_kv_heads, max_seq, head_dim))
        self.register_buffer("v_cache", torch.zeros(batch, n_kv_heads, max_seq, head_dim))
        self.length = 0

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        batch, n_heads, t, head_dim = q.shape
        start, end = self.length, self.length + t
        self.k_cache[:, :, start:end] = k
        self.v_cache[:, :, start:end] = v
        self.length = end
        keys, values = self.k_cache[:, :, :end], self.v_cache[:, :, :end]      # (batch, n_kv, end, head_dim)
        # Query head h = kv * group + j: a group axis next to the kv-head axis shares each key/value head.
        grouped = q.reshape(batch, -1, self.group, t, head_dim)
        scores = grouped @ keys.unsqueeze(2).transpose(-1, -2) / head_dim ** 0.5   # (batch, n_kv, group, t, end)
        # New token i sits at position start + i and sees the cached positions 0 .. start + i.
        positions = torch.arange(start, end, device=q.device)[:, None]
        blocked = torch.arange(end, device=q.device)[None, :] > positions
        weights = scores.masked_fill(blocked, float("-inf")).softmax(dim=-1)
        return (weights @ values.unsqueeze(2)).reshape(batch, n_heads, t, head_dim)
