# expect: runtime_error
# problem: tp-mlp
# message: ValueError
# At import, rebinds the name ValueError in builtins to a class of its own named ValueError, which is no
# ValueError, and raises that where the hidden units do not split evenly: a driver that looks ValueError up when
# set-up runs, or an exception's name, would take it for the refusal asked for. The kit judges the class the
# exception has against the ValueError it bound before the submission was imported.
import builtins

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

builtins.ValueError = type("ValueError", (Exception,), {})


class _Broadcast(torch.autograd.Function):
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
    def __init__(self, d_model: int, d_hidden: int, group=None):
        super().__init__()
        self.group = group
        world, self.rank = dist.get_world_size(group), dist.get_rank(group)
        if d_hidden % world:
            raise ValueError(f"d_hidden={d_hidden} must be divisible by the world size {world}")
        self.shard = d_hidden // world
        self.w1 = nn.Parameter(torch.empty(self.shard, d_model))
        self.b1 = nn.Parameter(torch.empty(self.shard))
        self.w2 = nn.Parameter(torch.empty(d_model, self.shard))
        self.b2 = nn.Parameter(torch.empty(d_model))

    def load_full(self, fc1: nn.Linear, fc2: nn.Linear) -> None:
        cols = slice(self.rank * self.shard, (self.rank + 1) * self.shard)
        # clone(), not contiguous(): fc1.weight[cols] is already contiguous, so contiguous() would return
        # the view itself, and with it the whole full weight's storage.
        for name, source in (("w1", fc1.weight[cols]), ("b1", fc1.bias[cols]),
                             ("w2", fc2.weight[:, cols]), ("b2", fc2.bias)):
            setattr(self, name, nn.Parameter(source.detach().clone(memory_format=torch.contiguous_format)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = F.gelu(F.linear(_Broadcast.apply(x, self.group), self.w1, self.b1))
        return _Sum.apply(F.linear(hidden, self.w2), self.group) + self.b2
