# expect: wrong_answer
# message: A is missing
import torch
from torch import nn


class Tiny(nn.Module):
    def __init__(self, d_in, d_out, r=2):
        super().__init__()
        self.base = nn.Linear(d_in, d_out, bias=False)
        self.base.weight.requires_grad_(False)
        self.C = nn.Parameter(torch.zeros(r, d_in))
        self.B = nn.Parameter(torch.zeros(d_out, r))

    def forward(self, x):
        return self.base(x) + x @ self.C.T @ self.B.T
