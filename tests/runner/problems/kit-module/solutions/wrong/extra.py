# expect: wrong_answer
# message: learnable parameters the interface does not have
import torch
from torch import nn


class Tiny(nn.Module):
    def __init__(self, d_in, d_out, r=2):
        super().__init__()
        self.base = nn.Linear(d_in, d_out, bias=False)
        self.base.weight.requires_grad_(False)
        self.A = nn.Parameter(torch.zeros(r, d_in))
        self.B = nn.Parameter(torch.zeros(d_out, r))
        self.extra = nn.Parameter(torch.zeros(3))

    def forward(self, x):
        return self.base(x) + x @ self.A.T @ self.B.T
