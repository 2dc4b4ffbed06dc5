# expect: wrong_answer
# message: learnable parameter
# problem: swiglu
# tests: all
# A learnable gain the interface does not have, hidden from the driver's check of the parameters: the
# kit's reader and the names it is reached by are replaced at import, and nn.Module.named_parameters skips
# the gain. The gain starts at 1 and the judge copies no weight into it, so every output is right; only the
# parameters break the interface. The kit's functions hold a private copy of its names, taken when it loaded.
import sys

import torch
import torch.nn.functional as F
from torch import nn

_kit = sys.modules["kit"]
_named_parameters = nn.Module.named_parameters


def _without_gain(self, *args, **kwargs):
    return ((name, p) for name, p in _named_parameters(self, *args, **kwargs) if not name.endswith("gain"))


nn.Module.named_parameters = _without_gain


def _interface_only(model):
    """What a reader of named_parameters() sees now: the interface's parameters and nothing else."""
    return {name: (tuple(p.shape), p.requires_grad) for name, p in model.named_parameters()}


# The reader, and every name it is reached by, replaced.
_kit._read = _interface_only
_kit.parameter_reader = lambda: _interface_only
_kit.run_module = lambda *args: {}


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden, bias=False)
        self.w3 = nn.Linear(d_model, d_hidden, bias=False)
        self.w2 = nn.Linear(d_hidden, d_model, bias=False)
        self.gain = nn.Parameter(torch.ones(()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x)) * self.gain
