# expect: wrong_answer
# mistake: a data-parallel habit: averages the replicated fc2 bias's gradient over the ranks in backward, as DDP would, through the process-group object; the gradient is already the same on every rank, so the values stay right and the backward pass spends a second all-reduce on nothing
# message: backward pass issued 2 all-reduces
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


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
    def __init__(self, d_model: int, d_hidden: int, group=None):
        super().__init__()
        self.group = group
        # The process-group object itself, as hand-rolled data-parallel code often keeps it.
        self.process_group = group or dist.group.WORLD
        self.world, self.rank = dist.get_world_size(group), dist.get_rank(group)
        if d_hidden % self.world:
            raise ValueError(f"d_hidden={d_hidden} must be divisible by the world size {self.world}")
        self.shard = d_hidden // self.world
        self.w1 = nn.Parameter(torch.zeros(self.shard, d_model))
        self.b1 = nn.Parameter(torch.zeros(self.shard))
        self.w2 = nn.Parameter(torch.zeros(d_model, self.shard))
        self.b2 = nn.Parameter(torch.zeros(d_model))
        # Replicated parameters are kept in sync the way DDP keeps them: average the gradient as it lands.
        self.b2.register_post_accumulate_grad_hook(self._average)

    def _average(self, parameter: torch.Tensor) -> None:
        self.process_group.allreduce([parameter.grad]).wait()
        parameter.grad /= self.world

    @torch.no_grad()
    def load_full(self, fc1: nn.Linear, fc2: nn.Linear) -> None:
        hidden = slice(self.rank * self.shard, (self.rank + 1) * self.shard)
        self.w1.copy_(fc1.weight[hidden])
        self.b1.copy_(fc1.bias[hidden])
        self.w2.copy_(fc2.weight[:, hidden])
        self.b2.copy_(fc2.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = F.gelu(F.linear(_Copy.apply(x, self.group), self.w1, self.b1))
        return _Sum.apply(F.linear(hidden, self.w2), self.group) + self.b2
