# expect: wrong_answer
# mistake: a hand-written backward that computes and all-reduces the input gradient whether or not x needs it (never reading ctx.needs_input_grad): right values, and a whole all-reduce per step that autograd throws away
# message: none is needed when x does not require grad
import math

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


class _ShardedMLP(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2, group):
        pre = F.linear(x, w1, b1)
        out = F.linear(F.gelu(pre), w2)
        dist.all_reduce(out, group=group)
        ctx.group = group
        ctx.save_for_backward(x, pre, w1, w2)
        return out + b2

    @staticmethod
    def backward(ctx, grad_out):
        x, pre, w1, w2 = ctx.saved_tensors
        rows_out = grad_out.reshape(-1, grad_out.shape[-1])
        rows_pre = pre.reshape(-1, pre.shape[-1])
        rows_x = x.reshape(-1, x.shape[-1])
        gelu_slope = torch.special.ndtr(rows_pre) + rows_pre * torch.exp(-0.5 * rows_pre**2) / math.sqrt(2 * math.pi)
        grad_pre = (rows_out @ w2) * gelu_slope
        grad_x = (grad_pre @ w1).reshape(x.shape)
        dist.all_reduce(grad_x, group=ctx.group)
        return (grad_x, grad_pre.T @ rows_x, grad_pre.sum(0), rows_out.T @ F.gelu(rows_pre), rows_out.sum(0), None)


class TensorParallelMLP(nn.Module):
    def __init__(self, d_model: int, d_hidden: int, group=None):
        super().__init__()
        world = dist.get_world_size(group)
        if d_hidden % world:
            raise ValueError(f"d_hidden={d_hidden} must be divisible by the world size {world}")
        self.group, self.rank, self.shard = group, dist.get_rank(group), d_hidden // world
        self.w1 = nn.Parameter(torch.zeros(self.shard, d_model))
        self.b1 = nn.Parameter(torch.zeros(self.shard))
        self.w2 = nn.Parameter(torch.zeros(d_model, self.shard))
        self.b2 = nn.Parameter(torch.zeros(d_model))

    @torch.no_grad()
    def load_full(self, fc1: nn.Linear, fc2: nn.Linear) -> None:
        start = self.rank * self.shard
        self.w1.copy_(fc1.weight.narrow(0, start, self.shard))
        self.b1.copy_(fc1.bias.narrow(0, start, self.shard))
        self.w2.copy_(fc2.weight.narrow(1, start, self.shard))
        self.b2.copy_(fc2.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _ShardedMLP.apply(x, self.w1, self.b1, self.w2, self.b2, self.group)
