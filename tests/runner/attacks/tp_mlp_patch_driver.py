# expect: wrong_answer
# message: holds
# problem: tp-mlp
# tests: all
# Keeps the full fc1 and fc2 on every rank, and at import patches everything by name that judged what a module
# holds: the driver's check_holdings and held_storages and the kit's observer of holdings (through sys.modules
# and an import), the storage sizes torch reports, and the JSON the report is written in. When the driver
# decided the bytes rule itself, the first patch alone was accepted. The driver now only reports, through the
# observer kit_ranks bound for it before this file was imported, and the checker on the trusted side decides.
import json
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


def _empty_holdings(observed, module, passed):
    observed.update(held={"bytes": 0, "given": [], "largest": []}, alive=[])


def _blind(observer):
    """An observer that reports an empty module after set-up, for a driver that makes one after this import."""
    def blinded():
        ranks = observer()
        set_up = ranks.set_up

        def set_up_blindly(observed, *args):
            module = set_up(observed, *args)
            _empty_holdings(observed, module, {})
            return module

        ranks.set_up, ranks.holdings = set_up_blindly, _empty_holdings
        return ranks
    return blinded


def _patch(module):
    module.check_holdings = lambda *args, **kwargs: None
    module.held_storages = lambda module: {}
    module.holdings = _empty_holdings
    if hasattr(module, "observer"):
        module.observer = _blind(module.observer)


for _name in ("judge_driver", "driver", "kit_ranks"):
    if _name in sys.modules:
        _patch(sys.modules[_name])
    else:
        try:
            _patch(__import__(_name))
        except ImportError:
            pass
torch.UntypedStorage.nbytes = lambda self: 0
_dumps = json.dumps


def _small_report(value, *args, **kwargs):
    if isinstance(value, dict) and "held" in value:
        value = {**value, "held": {"bytes": 0, "given": [], "largest": []}, "alive": []}
    return _dumps(value, *args, **kwargs)


json.dumps = _small_report


class _Copy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        grad = grad.contiguous().clone()
        dist.all_reduce(grad, group=ctx.group)
        return grad, None


class _Sum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, partial, group):
        partial = partial.contiguous().clone()
        dist.all_reduce(partial, group=group)
        return partial

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class TensorParallelMLP(nn.Module):
    def __init__(self, d_model, d_hidden, group=None):
        super().__init__()
        world = dist.get_world_size(group)
        if d_hidden % world:
            raise ValueError(f"d_hidden={d_hidden} must be divisible by the world size {world}")
        self.group, self.rank, self.shard = group, dist.get_rank(group), d_hidden // world
        self.fc1 = nn.Linear(d_model, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_model)

    def load_full(self, fc1, fc2):
        self.fc1.load_state_dict(fc1.state_dict())
        self.fc2.load_state_dict(fc2.state_dict())

    def forward(self, x):
        hidden = slice(self.rank * self.shard, (self.rank + 1) * self.shard)
        h = F.gelu(F.linear(_Copy.apply(x, self.group), self.fc1.weight[hidden], self.fc1.bias[hidden]))
        return _Sum.apply(F.linear(h, self.fc2.weight[:, hidden]), self.group) + self.fc2.bias
