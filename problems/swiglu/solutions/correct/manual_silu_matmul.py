# expect: accepted
# style: SiLU written out as x * sigmoid(x), projections as explicit matmuls with the transposed weights
import torch
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden, bias=False)
        self.w3 = nn.Linear(d_model, d_hidden, bias=False)
        self.w2 = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = x @ self.w1.weight.T
        hidden = gate * torch.sigmoid(gate) * (x @ self.w3.weight.T)
        return hidden @ self.w2.weight.T
