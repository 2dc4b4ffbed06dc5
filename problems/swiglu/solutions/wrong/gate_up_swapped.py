# expect: wrong_answer
# mistake: SiLU is applied to w3's output and w1 is the linear branch: the interface makes w1 the gate and w3 the up projection
# message: gate
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
        return self.w2(self.w1(x) * F.silu(self.w3(x)))
