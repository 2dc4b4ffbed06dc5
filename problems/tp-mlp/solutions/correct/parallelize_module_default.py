# expect: accepted
# style: PyTorch's own tensor parallelism called as its documentation calls it: parallelize_module with ColwiseParallel and RowwiseParallel on a DeviceMesh of the group, leaving src_data_rank at its default, so that load_full scatters rank 0's weights (set-up: any collective is allowed there)
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
        self.fc1.load_state_dict(fc1.state_dict())
        self.fc2.load_state_dict(fc2.state_dict())
        # fc1 split by its output features, fc2 by its input features; RowwiseParallel sums the partial outputs
        # with one all-reduce and adds fc2's replicated bias once. By default rank 0's weights are the source:
        # each shard is scattered from rank 0 and the bias broadcast from it, once, here in set-up.
        parallelize_module(self, self.mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))
