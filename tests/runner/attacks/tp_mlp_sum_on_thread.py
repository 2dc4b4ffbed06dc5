# expect: wrong_answer
# message: the forward pass issued 2 all-reduces
# problem: tp-mlp
# tests: all
# Sums the partial outputs with an all-reduce on a helper thread, and all-reduces one element on the calling
# thread, so that a record of the pass kept by a dispatch mode (thread-local) saw exactly one all-reduce. Other
# collectives are refused on every thread (tp_mlp_gather_on_thread.py), an all-reduce is not; the driver
# now counts collectives in the dispatcher, on every thread, and the checker also asks how many elements the
# one all-reduce summed: the partial outputs' count, never one.
import threading

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


class _SumOnThread(torch.autograd.Function):
    @staticmethod
    def forward(ctx, partial, group):
        total = partial.contiguous().clone()
        helper = threading.Thread(target=dist.all_reduce, args=(total,), kwargs={"group": group})
        helper.start()
        helper.join()
        dist.all_reduce(torch.zeros(1), group=group)
        return total

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
        self.w1 = nn.Parameter(torch.zeros(self.shard, d_model))
        self.b1 = nn.Parameter(torch.zeros(self.shard))
        self.w2 = nn.Parameter(torch.zeros(d_model, self.shard))
        self.b2 = nn.Parameter(torch.zeros(d_model))

    @torch.no_grad()
    def load_full(self, fc1, fc2):
        hidden = slice(self.rank * self.shard, (self.rank + 1) * self.shard)
        self.w1.copy_(fc1.weight[hidden])
        self.b1.copy_(fc1.bias[hidden])
        self.w2.copy_(fc2.weight[:, hidden])
        self.b2.copy_(fc2.bias)

    def forward(self, x):
        hidden = F.gelu(F.linear(_Copy.apply(x, self.group), self.w1, self.b1))
        return _SumOnThread.apply(F.linear(hidden, self.w2), self.group) + self.b2
