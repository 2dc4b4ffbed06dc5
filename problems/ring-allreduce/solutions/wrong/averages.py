# expect: wrong_answer
# mistake: divides by the world size at the end, as DDP does with gradients; an all-reduce sums
# message: it is the mean
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
    for step in range(world - 1):
        sent = dist.isend(chunks[(rank + 1 - step) % world], (rank + 1) % world)
        dist.recv(chunks[(rank - step) % world], (rank - 1) % world)
        sent.wait()
    tensor /= world
