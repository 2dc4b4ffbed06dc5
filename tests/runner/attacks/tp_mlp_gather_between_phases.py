# expect: wrong_answer
# message: the backward pass issued c10d::allgather_ (an all-gather)
# problem: tp-mlp
# Returns from forward a tensor that holds only this rank's partial output, all-reduces zeros of the output's size
# so that forward's count and elements match, and sums the partials with an all_gather the first time anything
# reads the output: when the driver, on its own thread between the forward and backward phases, checks its shape
# and multiplies it by the output's weights. While every collective but all-reduce was forbidden this raised; with
# set-up free to issue any, the observer counts the driver's own thread between phases too once set-up has ended,
# so the all_gather lands in the phase that follows, where the checker refuses it.
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


class _Lazy(torch.Tensor):
    """A tensor whose value is this rank's partial output plus the bias until it is first used."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        with torch._C.DisableTorchFunctionSubclass():
            for value in (*args, *kwargs.values()):
                pending = getattr(value, "_pending", None) if isinstance(value, _Lazy) else None
                if pending is not None:
                    value._pending = None
                    partial, bias, group = pending
                    pieces = [torch.empty_like(partial) for _ in range(dist.get_world_size(group))]
                    dist.all_gather(pieces, partial, group=group)
                    with torch.no_grad():
                        value.copy_(torch.stack(pieces).sum(0) + bias)
            return func(*args, **kwargs)


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
        partial = F.linear(F.gelu(F.linear(_Copy.apply(x, self.group), self.w1, self.b1)), self.w2)
        dist.all_reduce(torch.zeros_like(partial), group=self.group)
        # The gradient reaches partial and b2 unchanged, as through Megatron's g and a bias added once.
        out = (partial + self.b2).as_subclass(_Lazy)
        out._pending = (partial.detach().contiguous(), self.b2.detach().clone(), self.group)
        return out
