# expect: wrong_answer
# mistake: gathers every rank's partial output and sums the stack locally: the same numbers as one all-reduce, but world-size times the traffic and memory, and a collective the forward pass must not issue
# message: the forward pass issued c10d::allgather_ (an all-gather); all-reduce is the only collective it may issue: one all-reduce of the partial results already gives every rank the full sum
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


class _GatherSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, partial, group):
        pieces = [torch.empty_like(partial) for _ in range(dist.get_world_size(group))]
        dist.all_gather(pieces, partial.contiguous(), group=group)
        return torch.stack(pieces).sum(0)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class TensorParallelMLP(nn.Module):
    def __init__(self, d_model: int, d_hidden: int, group=None):
        super().__init__()
        world = dist.get_world_size(group)
        if d_hidden % world:
            raise ValueError(f"d_hidden={d_hidden} must be divisible by the world size {world}")
        self.group, self.rank, self.shard = group, dist.get_rank(group), d_hidden // world
        self.fc1 = nn.Linear(d_model, self.shard)
        self.fc2 = nn.Linear(self.shard, d_model, bias=False)
        self.bias = nn.Parameter(torch.zeros(d_model))

    def load_full(self, fc1: nn.Linear, fc2: nn.Linear) -> None:
        hidden = slice(self.rank * self.shard, (self.rank + 1) * self.shard)
        with torch.no_grad():
            self.fc1.weight.copy_(fc1.weight[hidden])
            self.fc1.bias.copy_(fc1.bias[hidden])
            self.fc2.weight.copy_(fc2.weight[:, hidden])
            self.bias.copy_(fc2.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        partial = self.fc2(F.gelu(self.fc1(_Copy.apply(x, self.group))))
        return _GatherSum.apply(partial, self.group) + self.bias
