# expect: wrong_answer
# problem: tp-mlp
# tests: all
# message: global _FULL_WEIGHTS
# The reference's sharding, but load_full also keeps copies of both full weights in a module-level list, where
# the judge's walk of what the module holds (parameters, buffers, tensor attributes) never looks: every rank
# holds the whole MLP and passes the holdings rule it is meant to keep.
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


class _CopyToTensorParallel(torch.autograd.Function):
    """Megatron's `f`: identity forward; backward sums the ranks' partial input gradients."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x

    @staticmethod
    def backward(ctx, grad):
        # Each rank's hidden shard only sees part of the input's influence on the output, so the
        # gradient it computes for x is one term of a sum over ranks.
        grad = grad.clone(memory_format=torch.contiguous_format)
        dist.all_reduce(grad, group=ctx.group)
        return grad, None


class _ReduceFromTensorParallel(torch.autograd.Function):
    """Megatron's `g`: forward sums the ranks' partial outputs; backward is the identity."""

    @staticmethod
    def forward(ctx, partial, group):
        total = partial.clone(memory_format=torch.contiguous_format)
        dist.all_reduce(total, group=group)
        return total

    @staticmethod
    def backward(ctx, grad):
        # Every rank goes on with the same full output and so receives the same full gradient already;
        # summing it over ranks (as a differentiable all-reduce would) would scale it by the world size.
        return grad, None


_FULL_WEIGHTS = []


class TensorParallelMLP(nn.Module):
    """`fc2(gelu(fc1(x)))` with the hidden units split across the ranks of `group` (Megatron column/row split)."""

    def __init__(self, d_model: int, d_hidden: int, group=None):
        super().__init__()
        world = dist.get_world_size(group)
        if d_hidden % world:
            raise ValueError(f"d_hidden={d_hidden} is not divisible by the tensor-parallel world size {world}")
        self.group = group
        self.rank = dist.get_rank(group)
        self.d_model = d_model
        self.d_hidden = d_hidden
        self.shard = d_hidden // world
        # Column-parallel: this rank's hidden units, i.e. rows of fc1's (out, in) weight, and their biases.
        self.fc1 = nn.Linear(d_model, self.shard)
        # Row-parallel: the matching input columns of fc2. Its bias must be added once, after the sum.
        self.fc2 = nn.Linear(self.shard, d_model, bias=False)
        self.fc2_bias = nn.Parameter(torch.zeros(d_model))

    def load_full(self, fc1: nn.Linear, fc2: nn.Linear) -> None:
        expected = ((self.d_hidden, self.d_model), (self.d_model, self.d_hidden))
        if (tuple(fc1.weight.shape), tuple(fc2.weight.shape)) != expected:
            raise ValueError(f"expected fc1 {expected[0]} and fc2 {expected[1]}, got "
                             f"{tuple(fc1.weight.shape)} and {tuple(fc2.weight.shape)}")
        _FULL_WEIGHTS.append((fc1.weight.detach().clone(), fc2.weight.detach().clone()))
        hidden = slice(self.rank * self.shard, (self.rank + 1) * self.shard)
        # copy_ into the module's own parameters: nothing here keeps a view of the full weights alive.
        with torch.no_grad():
            self.fc1.weight.copy_(fc1.weight[hidden])
            self.fc1.bias.copy_(fc1.bias[hidden])
            self.fc2.weight.copy_(fc2.weight[:, hidden])
            self.fc2_bias.copy_(fc2.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = _CopyToTensorParallel.apply(x, self.group)
        partial = self.fc2(F.gelu(self.fc1(x)))
        return _ReduceFromTensorParallel.apply(partial, self.group) + self.fc2_bias
