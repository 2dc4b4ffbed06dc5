# expect: wrong_answer
# mistake: skips the send and the receive of an empty chunk (fewer elements than ranks), on both sides alike:
# the sum is right, but the ranks no longer take the same 2(p-1) steps
# message: did not make exactly 2(p-1) = 6 sends and as many receives
# fails-on: w4-fewer-elements-than-ranks
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    right, left = (rank + 1) % world, (rank - 1) % world
    chunks = tensor.tensor_split(world)

    def exchange(outgoing, incoming):
        requests = [dist.isend(outgoing, right)] if outgoing.numel() else []
        requests += [dist.irecv(incoming, left)] if incoming.numel() else []
        for request in requests:
            request.wait()

    for step in range(world - 1):
        target = chunks[(rank - step - 1) % world]
        buffer = torch.empty_like(target)
        exchange(chunks[(rank - step) % world], buffer)
        target += buffer
    for step in range(world - 1):
        exchange(chunks[(rank + 1 - step) % world], chunks[(rank - step) % world])
