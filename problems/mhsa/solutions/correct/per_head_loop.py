# expect: accepted
# style: a Python loop over heads, each head a plain 3-D attention on its column slice of q, k and v
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
        seq = x.size(1)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        future = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1) if self.causal else None
        heads = []
        for head in range(self.n_heads):
            cols = slice(head * self.d_k, (head + 1) * self.d_k)
            scores = q[..., cols] @ k[..., cols].transpose(1, 2) / math.sqrt(self.d_k)
            if future is not None:
                scores = scores.masked_fill(future, float("-inf"))
            heads.append(torch.softmax(scores, dim=-1) @ v[..., cols])
        return self.out(torch.cat(heads, dim=-1))
