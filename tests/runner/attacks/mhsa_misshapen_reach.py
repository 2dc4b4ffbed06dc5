# expect: wrong_answer
# message: reach
# problem: mhsa
# Wrong only when causal, and makes the driver report `y.reach`, the output the checker's diagnosis reads to
# say which keys each query saw, as a 1-D tensor. Read unchecked, it raised in the checker (an internal
# error) instead of failing the test.
import math
import sys

import torch
from torch import nn

_driver = sys.modules["judge_driver"]
_run = _driver.run


def _misshapen_reach(solution, params, inputs, ctx):
    outputs = _run(solution, params, inputs, ctx)
    return {name: torch.zeros(3, dtype=torch.float64) if name.endswith("reach") else tensor
            for name, tensor in outputs.items()}


_driver.run = _misshapen_reach


class MHSA(nn.Module):
    def __init__(self, d_model: int, n_heads: int, causal: bool = False) -> None:
        super().__init__()
        self.h, self.dk, self.causal = n_heads, d_model // n_heads, causal
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=-1)
        q, k, v = (t.view(B, T, self.h, self.dk).transpose(1, 2) for t in (q, k, v))
        att = q @ k.transpose(-2, -1) * (1.0 if self.causal else 1 / math.sqrt(self.dk))
        if self.causal:
            att = att.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
        return self.out((att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, C))
