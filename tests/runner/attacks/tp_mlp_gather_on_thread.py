# expect: wrong_answer
# message: the forward pass issued c10d::allgather_ (an all-gather)
# problem: tp-mlp
# Gathers the partial outputs with an all_gather on a helper thread, where a thread-local dispatch mode does
# not see it, and all-reduces zeros of the partial output's size on the calling thread so that the
# all-reduces counted match the reference's. tp-mlp once forbade every collective but all-reduce in the
# dispatcher (`forbidden`); set-up may now issue any, and the driver's observer, which counts collectives in
# the dispatcher on every thread, reports the helper thread's all_gather in the forward pass, where the
# checker refuses it.
import threading

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


def _gather_on_thread(partial, group):
    pieces = [torch.empty_like(partial) for _ in range(dist.get_world_size(group))]
    failure = []

    def gather():
        try:
            dist.all_gather(pieces, partial.contiguous(), group=group)
        except BaseException as error:  # noqa: BLE001
            failure.append(error)

    worker = threading.Thread(target=gather)
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return torch.stack(pieces).sum(0)


class _GatherSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, partial, group):
        return _gather_on_thread(partial, group)

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
        dummy = torch.zeros_like(partial)
        dist.all_reduce(dummy, group=self.group)
        return _GatherSum.apply(partial, self.group) + self.bias + dummy
