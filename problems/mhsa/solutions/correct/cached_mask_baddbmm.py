# expect: accepted
# style: heads folded into the batch for bmm/baddbmm, with an additive causal bias from a mask buffer that grows on demand
import math

import torch
from torch import nn


class MHSA(nn.Module):
    def __init__(self, d_model: int, n_heads: int, causal: bool = False) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.d_k = d_model // n_heads
        self.causal = causal
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        # Not persistent: the mask is derived data, so it stays out of the state dict.
        self.register_buffer("future", torch.ones(0, 0, dtype=torch.bool), persistent=False)

    def _future(self, seq: int, device: torch.device) -> torch.Tensor:
        # Rebuilt for a longer sequence; a shorter one reads the top-left corner, which is the same triangle.
        if self.future.size(0) < seq or self.future.device != device:
            self.future = torch.ones(seq, seq, dtype=torch.bool, device=device).triu(1)
        return self.future[:seq, :seq]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, d_model = x.shape

        def fold_heads(part: torch.Tensor) -> torch.Tensor:
            return part.reshape(batch, seq, self.n_heads, self.d_k).transpose(1, 2).reshape(-1, seq, self.d_k)

        q, k, v = map(fold_heads, self.qkv(x).split(d_model, dim=-1))
        if self.causal:
            bias = torch.zeros(seq, seq, dtype=x.dtype, device=x.device).masked_fill(
                self._future(seq, x.device), float("-inf")
            )
        else:
            bias = x.new_zeros(())
        scores = torch.baddbmm(bias, q, k.transpose(1, 2), alpha=1.0 / math.sqrt(self.d_k))
        heads = torch.bmm(scores.softmax(dim=-1), v)
        merged = heads.view(batch, self.n_heads, seq, self.d_k).transpose(1, 2).reshape(batch, seq, d_model)
        return self.out(merged)
