# expect: accepted
# style: the fc2 bias lives on rank 0 and joins the sum; f is a gradient hook, g a detached all-reduce spliced into the graph; load_full checks with an all-reduce of its own that every rank was given the same layers
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


class TensorParallelMLP(nn.Module):
    def __init__(self, d_model: int, d_hidden: int, group=None):
        super().__init__()
        world = dist.get_world_size(group)
        if d_hidden % world:
            raise ValueError(f"d_hidden={d_hidden} must be divisible by the world size {world}")
        self.group = group
        self.rank = dist.get_rank(group)
        self.shard = d_hidden // world
        self.up = nn.Linear(d_model, self.shard)
        # Only rank 0 holds fc2's bias: it enters the all-reduce once, so the sum counts it exactly once.
        self.down = nn.Linear(self.shard, d_model, bias=self.rank == 0)

    def load_full(self, fc1: nn.Linear, fc2: nn.Linear) -> None:
        # Ranks given different layers would each compute a shard of another MLP, and nothing later would
        # say so: compare the layers' sums across the group (the largest and, negated, the smallest).
        sums = torch.stack([tensor.detach().double().sum() for tensor in (*fc1.parameters(), *fc2.parameters())])
        spread = torch.cat([sums, -sums])
        dist.all_reduce(spread, op=dist.ReduceOp.MAX, group=self.group)
        if not torch.equal(spread[: len(sums)], -spread[len(sums):]):
            raise ValueError("load_full was given different layers on different ranks")
        lo, hi = self.rank * self.shard, (self.rank + 1) * self.shard
        with torch.no_grad():
            self.up.weight.copy_(fc1.weight[lo:hi])
            self.up.bias.copy_(fc1.bias[lo:hi])
            self.down.weight.copy_(fc2.weight[:, lo:hi])
            if self.down.bias is not None:
                self.down.bias.copy_(fc2.bias)

    def _sum_over_ranks(self, grad: torch.Tensor) -> torch.Tensor:
        total = grad.clone(memory_format=torch.contiguous_format)
        dist.all_reduce(total, group=self.group)
        return total

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad:
            # A fresh alias, so the hook sums only the gradient flowing through this layer and leaves any
            # other use of x by the caller alone.
            x = x.view_as(x)
            x.register_hook(self._sum_over_ranks)
        partial = self.down(F.gelu(self.up(x)))
        total = partial.detach().clone(memory_format=torch.contiguous_format)
        dist.all_reduce(total, group=self.group)
        # Value of the sum, gradient of the identity: every rank already receives the full output gradient.
        return partial + (total - partial).detach()
