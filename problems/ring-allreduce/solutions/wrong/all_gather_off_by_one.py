# expect: wrong_answer
# mistake: in the all-gather each rank sends chunk (rank - step) mod p, the reduce-scatter's index, instead of
# the chunk it has just finished, (rank + 1 - step) mod p: receivers store partial sums
# message: an off-by-one index sends a partial sum
# fails-on: w3-indivisible
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % world, (rank - 1) % world
    chunks = tensor.tensor_split(world)
    for step in range(world - 1):
        incoming = torch.empty_like(chunks[(rank - step - 1) % world])
        sent = dist.isend(chunks[(rank - step) % world], right)
        dist.recv(incoming, left)
        sent.wait()
        chunks[(rank - step - 1) % world].add_(incoming)
    for step in range(world - 1):
        sent = dist.isend(chunks[(rank - step) % world], right)
        dist.recv(chunks[(rank - step - 1) % world], left)
        sent.wait()
