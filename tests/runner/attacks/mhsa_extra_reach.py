# expect: wrong_answer
# message: scale
# problem: mhsa
# tests: all
# Wrong only in the causal test without gradients (its wrapper of the driver tells the model which test runs),
# where the reference reports no `y.reach`, and makes the driver add a 1-D `y.reach` there. A diagnosis that
# read `reach` whenever the outputs held one raised on the forged one (an internal error). Only the names the
# reference produced reach the checker.
# The process ends at the next call: a crash skips the tests after it, which would only cost time, and the
# verdict is still the first failure's.
import math
import os
import sys

import torch
from torch import nn

_driver = sys.modules["judge_driver"]
_run = _driver.run


_forged, _unscaled = [], [False]


def _with_reach(solution, params, inputs, ctx):
    if _forged:
        os._exit(1)
    _unscaled[0] = params["causal"] and not params["grad"]
    outputs = _run(solution, params, inputs, ctx)
    if _unscaled[0]:
        outputs["y.reach"] = torch.zeros(3)
        _forged.append(params)
    return outputs


_driver.run = _with_reach


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
        att = q @ k.transpose(-2, -1) * (1.0 if _unscaled[0] else 1 / math.sqrt(self.dk))
        if self.causal:
            att = att.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
        return self.out((att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, C))
