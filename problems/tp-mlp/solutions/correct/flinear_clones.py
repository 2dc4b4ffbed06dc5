# expect: accepted
# style: shards stored as contiguous clones in plain nn.Parameters, applied with F.linear between named f/g helpers
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


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
