import torch
from torch import nn


class GQAKVCache(nn.Module):
    """Causal grouped-query attention with a KV cache of n_kv_heads heads.

    forward(q, k, v): q (batch, n_heads, t, head_dim), k and v (batch, n_kv_heads, t, head_dim) for the t new
    tokens; appends k and v to the cache and returns (batch, n_heads, t, head_dim). Query head h uses key/value
    head h // (n_heads // n_kv_heads). Keep the cache in buffers (register_buffer).
    """

    def __init__(self, batch: int, n_heads: int, n_kv_heads: int, head_dim: int, max_seq: int) -> None:
        super().__init__()
        raise NotImplementedError

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError
