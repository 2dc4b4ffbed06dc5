# expect: wrong_answer
# message: learnable parameter
# problem: mhsa
# tests: all
# A learnable gain the interface does not have, hidden from the driver's check of the parameters: the
# names the kit's driver reads them with are replaced at import, and nn.Module.named_parameters skips the
# gain. The gain starts at 1 and the judge copies no weight into it, so every output is right; only the
# parameters break the interface. The kit reads them through functions it bound before the import.
import math
import sys

import torch
from torch import nn

kit = sys.modules["kit"]
_named_parameters = nn.Module.named_parameters


def _without_gain(self, *args, **kwargs):
    return ((name, p) for name, p in _named_parameters(self, *args, **kwargs) if not name.endswith("gain"))


nn.Module.named_parameters = _without_gain


def _interface_only(model):
    """What a reader of named_parameters() sees now: the interface's parameters and nothing else."""
    return {name: (tuple(p.shape), True) for name, p in model.named_parameters()}


# The reader the kit's module driver calls, and the accessor that hands it out, each replaced by name.
kit._read = _interface_only
kit.parameter_reader = lambda: _interface_only


class MHSA(nn.Module):
    def __init__(self, d_model: int, n_heads: int, causal: bool = False) -> None:
        super().__init__()
        self.h, self.dk, self.causal = n_heads, d_model // n_heads, causal
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.gain = nn.Parameter(torch.ones(()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=-1)
        q, k, v = (t.view(B, T, self.h, self.dk).transpose(1, 2) for t in (q, k, v))
        att = q @ k.transpose(-2, -1) / math.sqrt(self.dk)
        if self.causal:
            att = att.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
        return self.out((att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, C)) * self.gain
