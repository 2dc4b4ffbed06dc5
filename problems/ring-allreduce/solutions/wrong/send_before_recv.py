# expect: wrong_answer
# mistake: every rank makes a blocking send before its receive; gloo's send waits for the matching receive,
# so every rank waits in its first send until the collective timeout
# message: every rank was sending and none receiving
# fails-on: w3-indivisible
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % world, (rank - 1) % world
    chunks = tensor.tensor_split(world)
    for step in range(world - 1):
        incoming = torch.empty_like(chunks[(rank - step - 1) % world])
        dist.send(chunks[(rank - step) % world], right)
        dist.recv(incoming, left)
        chunks[(rank - step - 1) % world].add_(incoming)
    for step in range(world - 1):
        dist.send(chunks[(rank + 1 - step) % world], right)
        dist.recv(chunks[(rank - step) % world], left)
