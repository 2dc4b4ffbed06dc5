# expect: runtime_error
# mistake: reads "column-parallel" on nn.Linear's (out, in) weight as splitting dim 1, so fc1 is cut along its input features and fc2 along its outputs: the shards no longer fit the replicated input
# message: shapes cannot be multiplied
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


class _Copy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x

    @staticmethod
    def backward(ctx, grad):
        grad = grad.clone(memory_format=torch.contiguous_format)
        dist.all_reduce(grad, group=ctx.group)
        return grad, None


class _Reduce(torch.autograd.Function):
    @staticmethod
    def forward(ctx, partial, group):
        total = partial.clone(memory_format=torch.contiguous_format)
        dist.all_reduce(total, group=group)
        return total

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class TensorParallelMLP(nn.Module):
    def __init__(self, d_model: int, d_hidden: int, group=None):
        super().__init__()
        self.group = group
        self.world = dist.get_world_size(group)
        if d_hidden % self.world:
            raise ValueError(f"d_hidden={d_hidden} must be divisible by the world size {self.world}")
        self.rank = dist.get_rank(group)

    def load_full(self, fc1: nn.Linear, fc2: nn.Linear) -> None:
        with torch.no_grad():
            self.w1 = nn.Parameter(fc1.weight.chunk(self.world, dim=1)[self.rank].clone())
            self.b1 = nn.Parameter(fc1.bias.chunk(self.world)[self.rank].clone())
            self.w2 = nn.Parameter(fc2.weight.chunk(self.world, dim=0)[self.rank].clone())
            self.b2 = nn.Parameter(fc2.bias.clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = F.gelu(F.linear(_Copy.apply(x, self.group), self.w1, self.b1))
        return _Reduce.apply(F.linear(hidden, self.w2), self.group) + self.b2
