# expect: accepted
# style: einsum over named axes with no explicit transposes; the causal mask from two broadcast aranges
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

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).unflatten(-1, (3, self.n_heads, self.d_k)).unbind(dim=2)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(self.d_k)
        if self.causal:
            positions = torch.arange(x.size(1), device=x.device)
            scores = scores.masked_fill(positions[None, :] > positions[:, None], float("-inf"))
        heads = torch.einsum("bhqk,bkhd->bqhd", scores.softmax(dim=-1), v)
        return self.out(heads.flatten(start_dim=2))
