# expect: accepted
# Blocking send and recv only: even ranks send first and odd ranks receive first, so every send meets a
# posted receive (on an odd ring, rank 0 takes the last even rank's send once its own is done).
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % world, (rank - 1) % world
    chunks = tensor.tensor_split(world)

    def exchange(outgoing, incoming):
        if rank % 2 == 0:
            dist.send(outgoing, right)
            dist.recv(incoming, left)
        else:
            dist.recv(incoming, left)
            dist.send(outgoing, right)

    for step in range(world - 1):
        target = chunks[(rank - step - 1) % world]
        buffer = torch.empty_like(target)
        exchange(chunks[(rank - step) % world], buffer)
        target.add_(buffer)
    for step in range(world - 1):
        exchange(chunks[(rank + 1 - step) % world], chunks[(rank - step) % world])
