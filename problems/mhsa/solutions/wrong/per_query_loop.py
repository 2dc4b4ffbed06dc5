# expect: time_limit_exceeded
# mistake: attention is computed one (batch, head, query) triple at a time in Python, so tens of thousands of tiny kernels replace a few batched matmuls
import math

import torch
from torch import nn


class MHSA(nn.Module):
    def __init__(self, d_model: int, n_heads: int, causal: bool = False) -> None:
        super().__init__()
        self.h, self.dk, self.causal = n_heads, d_model // n_heads, causal
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=-1)
        rows = []
        for b in range(B):
            for i in range(T):
                heads = []
                for h in range(self.h):
                    cols = slice(h * self.dk, (h + 1) * self.dk)
                    seen = i + 1 if self.causal else T
                    scores = k[b, :seen, cols] @ q[b, i, cols] / math.sqrt(self.dk)
                    heads.append(scores.softmax(-1) @ v[b, :seen, cols])
                rows.append(torch.cat(heads))
        return self.out(torch.stack(rows).view(B, T, C))
