import math

import torch
import torch.nn.functional as F
from torch import nn


class MHSA(nn.Module):
    """Multi-head self-attention over `(B, T, d_model)`, optionally causal."""

    def __init__(self, d_model: int, n_heads: int, causal: bool = False) -> None:
        super().__init__()
        self.qkv = nn.Linear(d_model, 3 * d_model)  # q, k, v in this order along the output features
        self.out = nn.Linear(d_model, d_model)
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Map `x` of shape `(B, T, d_model)` to `(B, T, d_model)`."""
        raise NotImplementedError
