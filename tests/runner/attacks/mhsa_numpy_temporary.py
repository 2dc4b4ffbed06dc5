# expect: memory_limit_exceeded
# message: resident memory grew
# problem: mhsa
# Correct attention, but each call also fills a 64 MiB NumPy scratch array: NumPy allocates outside torch's
# dispatcher, so the tensor tracker never sees it; the growth of the process's resident set does.
import math

import numpy as np
import torch
from torch import nn


class MHSA(nn.Module):
    def __init__(self, d_model: int, n_heads: int, causal: bool = False) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.d_k = d_model // n_heads
        self.causal = causal
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scratch = np.ones(16 << 20, dtype=np.float32)
        batch, seq, d_model = x.shape
        q, k, v = (part.view(batch, seq, self.n_heads, self.d_k).transpose(1, 2)
                   for part in self.qkv(x).split(d_model, dim=-1))
        scores = (q * (1.0 / math.sqrt(self.d_k))) @ k.transpose(-2, -1) * float(scratch[-1])
        if self.causal:
            future = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(future, float("-inf"))
        heads = scores.softmax(dim=-1) @ v
        return self.out(heads.transpose(1, 2).reshape(batch, seq, d_model))
