# expect: accepted
# batch_isend_irecv: each step posts its send and its receive together and waits on both.
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % world, (rank - 1) % world
    chunks = list(tensor.tensor_split(world))
    scratch = torch.empty_like(chunks[0])  # the largest chunk is the first

    def step(outgoing, incoming):
        ops = [dist.P2POp(dist.isend, outgoing, right), dist.P2POp(dist.irecv, incoming, left)]
        for work in dist.batch_isend_irecv(ops):
            work.wait()

    for s in range(world - 1):
        target = chunks[(rank - s - 1) % world]
        buffer = scratch[: target.numel()]
        step(chunks[(rank - s) % world], buffer)
        target += buffer
    for s in range(world - 1):
        step(chunks[(rank + 1 - s) % world], chunks[(rank - s) % world])
