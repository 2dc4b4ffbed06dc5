# expect: accepted
# style: PyTorch's own tensor parallelism: full nn.Linear layers sharded by parallelize_module with ColwiseParallel and RowwiseParallel on a DeviceMesh of the group
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module


class TensorParallelMLP(nn.Module):
    def __init__(self, d_model: int, d_hidden: int, group=None):
        super().__init__()
        group = group or dist.group.WORLD
        world = dist.get_world_size(group)
        if d_hidden % world:
            raise ValueError(f"d_hidden={d_hidden} must be divisible by the world size {world}")
        self.mesh = DeviceMesh.from_group(group, "cpu")
        self.fc1 = nn.Linear(d_model, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_model)

    def load_full(self, fc1: nn.Linear, fc2: nn.Linear) -> None:
        # load_state_dict copies into this module's own full layers; parallelize_module then replaces each
        # weight with a DTensor holding only this rank's shard, and the full copies are freed.
        self.fc1.load_state_dict(fc1.state_dict())
        self.fc2.load_state_dict(fc2.state_dict())
        # fc1 split by its output features (ColwiseParallel: Shard(0) of the (out, in) weight), fc2 by its
        # input features (RowwiseParallel: Shard(1)); RowwiseParallel sums the partial outputs with one
        # all-reduce and adds fc2's replicated bias once. Every rank was given the same full layers, so each
        # takes its shard locally (src_data_rank=None) rather than have rank 0 scatter them.
        parallelize_module(self, self.mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()},
                           src_data_rank=None)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))
