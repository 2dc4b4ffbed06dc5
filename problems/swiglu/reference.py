"""SwiGLU feed-forward block: a SiLU-gated linear unit between two bias-free projections."""
import torch
import torch.nn.functional as F
from torch import nn


class SwiGLU(nn.Module):
    """`w2(silu(w1(x)) * w3(x))` over the last axis of `x`."""

    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden, bias=False)
        self.w3 = nn.Linear(d_model, d_hidden, bias=False)
        self.w2 = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))
