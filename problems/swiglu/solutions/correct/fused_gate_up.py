# expect: accepted
# style: gate and up projections as one matmul on the concatenated weights of w1 and w3, chunked afterwards
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
        # Concatenated per call rather than stored fused, so w1 and w3 stay the parameters that
        # checkpoints, optimisers and weight copies by name address.
        gate, up = F.linear(x, torch.cat((self.w1.weight, self.w3.weight))).chunk(2, dim=-1)
        return self.w2(F.silu(gate) * up)
