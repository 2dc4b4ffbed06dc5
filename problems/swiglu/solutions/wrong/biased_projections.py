# expect: wrong_answer
# mistake: the projections keep nn.Linear's default bias: LLaMA-style SwiGLU is bias-free, and three extra bias vectors are extra parameters the interface does not have
# message: bias
import torch
import torch.nn.functional as F
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden)
        self.w3 = nn.Linear(d_model, d_hidden)
        self.w2 = nn.Linear(d_hidden, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))
