# expect: wrong_answer
# message: learnable parameter
# problem: swiglu
# tests: all
# A learnable gain the interface does not have, hidden from the driver's check of the parameters: the
# names the driver checks them with are replaced at import, and nn.Module.named_parameters skips the gain.
# The gain starts at 1 and the judge copies no weight into it, so every output is right; only the
# parameters break the interface. The driver reads them through functions it bound before the import.
import sys

import torch
import torch.nn.functional as F
from torch import nn

_driver = sys.modules["judge_driver"]
_named_parameters = nn.Module.named_parameters


def _without_gain(self, *args, **kwargs):
    return ((name, p) for name, p in _named_parameters(self, *args, **kwargs) if not name.endswith("gain"))


nn.Module.named_parameters = _without_gain


def _interface_only(model, device, label=""):
    """What a reader of named_parameters() sees now: the interface's parameters and nothing else."""
    found = {name: tuple(p.shape) for name, p in model.named_parameters()}
    rows = [[len(found[name]), *[*found[name], 0, 0][:2]] for name in _driver.PARAMETERS]
    return found, {f"parameters{label}": torch.tensor(rows, device=device),
                   f"module{label}": torch.tensor([1, 0, 0], device=device)}


# The check the driver once made, and the reader it makes now, each replaced by name.
_driver.build = lambda solution, d_model, d_hidden, ctx: solution.SwiGLU(d_model, d_hidden)
_driver._parameter_reader = lambda: _interface_only


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden, bias=False)
        self.w3 = nn.Linear(d_model, d_hidden, bias=False)
        self.w2 = nn.Linear(d_hidden, d_model, bias=False)
        self.gain = nn.Parameter(torch.ones(()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x)) * self.gain
