# expect: wrong_answer
# mistake: stores only its shard, as FSDP does, but gathers the full weights back with the functional all_gather before every forward and computes the whole MLP locally: the memory rule holds between calls, and each forward moves both full weight matrices to every rank instead of one output-sized all-reduce
# message: the forward pass issued _c10d_functional::all_gather_into_tensor (an all-gather); all-reduce is the only collective it may issue: one all-reduce of the partial results already gives every rank the full sum, and gathering weights or outputs instead moves world-size times as much data on every call
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.nn.functional as F
from torch import nn


class TensorParallelMLP(nn.Module):
    def __init__(self, d_model: int, d_hidden: int, group=None):
        super().__init__()
        self.group = group or dist.group.WORLD
        world = dist.get_world_size(self.group)
        if d_hidden % world:
            raise ValueError(f"d_hidden={d_hidden} must be divisible by the world size {world}")
        self.rank, self.shard = dist.get_rank(self.group), d_hidden // world
        self.w1 = nn.Parameter(torch.zeros(self.shard, d_model))
        self.b1 = nn.Parameter(torch.zeros(self.shard))
        # fc2's weight transposed, so that its shard is a block of rows, as all_gather concatenates them.
        self.w2_t = nn.Parameter(torch.zeros(self.shard, d_model))
        self.b2 = nn.Parameter(torch.zeros(d_model))

    @torch.no_grad()
    def load_full(self, fc1: nn.Linear, fc2: nn.Linear) -> None:
        hidden = slice(self.rank * self.shard, (self.rank + 1) * self.shard)
        self.w1.copy_(fc1.weight[hidden])
        self.b1.copy_(fc1.bias[hidden])
        self.w2_t.copy_(fc2.weight[:, hidden].T)
        self.b2.copy_(fc2.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The autograd variant, so that each gathered weight's gradient is reduce-scattered back to its shard.
        gather = funcol.all_gather_tensor_autograd
        w1 = gather(self.w1, 0, self.group)
        b1 = gather(self.b1, 0, self.group)
        w2 = gather(self.w2_t, 0, self.group).T
        return F.linear(F.gelu(F.linear(x, w1, b1)), w2, self.b2)
