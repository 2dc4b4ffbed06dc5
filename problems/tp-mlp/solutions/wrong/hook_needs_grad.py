# expect: runtime_error
# mistake: registers Megatron's f as a gradient hook on x whenever grad mode is on, without asking whether x itself requires grad; the first layer's input (or any input nobody needs the gradient of) does not, and register_hook refuses such a tensor
# message: doesn't require gradient
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
        self.down = nn.Linear(self.shard, d_model, bias=False)
        self.bias = nn.Parameter(torch.zeros(d_model))

    def load_full(self, fc1: nn.Linear, fc2: nn.Linear) -> None:
        lo, hi = self.rank * self.shard, (self.rank + 1) * self.shard
        with torch.no_grad():
            self.up.weight.copy_(fc1.weight[lo:hi])
            self.up.bias.copy_(fc1.bias[lo:hi])
            self.down.weight.copy_(fc2.weight[:, lo:hi])
            self.bias.copy_(fc2.bias)

    def _sum_over_ranks(self, grad: torch.Tensor) -> torch.Tensor:
        total = grad.clone(memory_format=torch.contiguous_format)
        dist.all_reduce(total, group=self.group)
        return total

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled():
            x = x.view_as(x)
            x.register_hook(self._sum_over_ranks)
        partial = self.down(F.gelu(self.up(x)))
        total = partial.detach().clone(memory_format=torch.contiguous_format)
        dist.all_reduce(total, group=self.group)
        return partial + (total - partial).detach() + self.bias
