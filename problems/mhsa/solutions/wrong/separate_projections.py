# expect: wrong_answer
# mistake: q, k and v get a Linear each (q_proj, k_proj, v_proj, as in many libraries), but the interface fixes one fused qkv projection whose weights the judge copies in by name
# message: qkv.weight is missing
import math

import torch
from torch import nn


class MHSA(nn.Module):
    def __init__(self, d_model: int, n_heads: int, causal: bool = False) -> None:
        super().__init__()
        self.h, self.dk, self.causal = n_heads, d_model // n_heads, causal
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        projections = (self.q_proj, self.k_proj, self.v_proj)
        q, k, v = (proj(x).view(B, T, self.h, self.dk).transpose(1, 2) for proj in projections)
        att = q @ k.transpose(-2, -1) / math.sqrt(self.dk)
        if self.causal:
            mask = torch.triu(torch.ones(T, T, dtype=torch.bool, device=x.device), 1)
            att = att.masked_fill(mask, float("-inf"))
        y = att.softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(B, T, C))
