# expect: wrong_answer
# mistake: reduces a copy and returns it, leaving the caller's tensor as it was; like dist.all_reduce, the
# function works in place and returns None
# message: this rank's own input, unchanged
# fails-on: w3-indivisible
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> torch.Tensor:
    rank, world = dist.get_rank(), dist.get_world_size()
    result = tensor.clone()
    chunks = result.tensor_split(world)
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
    return result
