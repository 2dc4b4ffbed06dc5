# expect: wrong_answer
# message: call 2 of one instance (it ran on x of shape (5, 4) before)
import torch
from torch import nn


class Tiny(nn.Module):
    """Keeps the update only for the shape of x of its first call, as a mask cached for the first length."""

    def __init__(self, d_in, d_out, r=2):
        super().__init__()
        self.base = nn.Linear(d_in, d_out, bias=False)
        self.base.weight.requires_grad_(False)
        self.A = nn.Parameter(torch.zeros(r, d_in))
        self.B = nn.Parameter(torch.zeros(d_out, r))
        self.shape = None

    def forward(self, x):
        self.shape = self.shape or x.shape
        return self.base(x) + (x @ self.A.T @ self.B.T if x.shape == self.shape else 0)
