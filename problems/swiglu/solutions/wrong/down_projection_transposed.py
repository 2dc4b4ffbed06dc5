# expect: wrong_answer
# mistake: w2 is declared as nn.Linear(d_model, d_hidden) and applied through its transposed weight, so w2.weight has shape (d_hidden, d_model) instead of (d_model, d_hidden)
# message: w2.weight
import torch
import torch.nn.functional as F
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden, bias=False)
        self.w3 = nn.Linear(d_model, d_hidden, bias=False)
        self.w2 = nn.Linear(d_model, d_hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (F.silu(self.w1(x)) * self.w3(x)) @ self.w2.weight
