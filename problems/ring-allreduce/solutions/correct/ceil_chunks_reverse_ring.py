# expect: accepted
# Chunks of ceil(N / p) elements cut by hand (the last ones short or empty, as torch.chunk cuts them), and
# the ring run the other way round: each rank sends to its left neighbour and receives from its right.
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    size = -(-tensor.numel() // world)
    bounds = [(min(i * size, tensor.numel()), min((i + 1) * size, tensor.numel())) for i in range(world)]
    chunk = lambda i: tensor[bounds[i % world][0]:bounds[i % world][1]]  # noqa: E731
    to, source = (rank - 1) % world, (rank + 1) % world
    for s in range(world - 1):
        incoming = torch.zeros_like(chunk(rank + s + 1))
        requests = [dist.isend(chunk(rank + s), to), dist.irecv(incoming, source)]
        for request in requests:
            request.wait()
        chunk(rank + s + 1).add_(incoming)
    for s in range(world - 1):
        requests = [dist.irecv(chunk(rank + s), source), dist.isend(chunk(rank + s - 1), to)]
        for request in requests:
            request.wait()
