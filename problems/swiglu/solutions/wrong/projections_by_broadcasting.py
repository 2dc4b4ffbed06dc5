# expect: memory_limit_exceeded
# mistake: each projection is computed as (x[..., None, :] * W).sum(-1), which materialises a (tokens, d_out, d_in) tensor, d_in times the projection's output
# message: memory
import torch
import torch.nn.functional as F
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden, bias=False)
        self.w3 = nn.Linear(d_model, d_hidden, bias=False)
        self.w2 = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = (x[..., None, :] * self.w1.weight).sum(-1)
        up = (x[..., None, :] * self.w3.weight).sum(-1)
        return ((F.silu(gate) * up)[..., None, :] * self.w2.weight).sum(-1)
