# expect: wrong_answer
# mistake: runs the reduce-scatter and stops: each rank holds the full sum of one chunk only, and partial sums
# everywhere else
# message: the all-gather, p-1 more steps passing each finished chunk on round the ring, is missing
# fails-on: w3-indivisible
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    chunks = tensor.tensor_split(world)
    for step in range(world - 1):
        incoming = torch.empty_like(chunks[(rank - step - 1) % world])
        sent = dist.isend(chunks[(rank - step) % world], (rank + 1) % world)
        dist.recv(incoming, (rank - 1) % world)
        sent.wait()
        chunks[(rank - step - 1) % world].add_(incoming)
