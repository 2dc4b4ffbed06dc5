# expect: wrong_answer
# mistake: cuts p chunks of N // p elements, so the last N mod p elements belong to no chunk and keep this
# rank's own input
# message: were never reduced: chunks of N // p elements drop the remainder
# fails-on: w3-indivisible
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    size = tensor.numel() // world
    chunks = [tensor[i * size:(i + 1) * size] for i in range(world)]
    right, left = (rank + 1) % world, (rank - 1) % world
    for step in range(world - 1):
        incoming = torch.empty_like(chunks[(rank - step - 1) % world])
        sent = dist.isend(chunks[(rank - step) % world], right)
        dist.recv(incoming, left)
        sent.wait()
        chunks[(rank - step - 1) % world] += incoming
    for step in range(world - 1):
        sent = dist.isend(chunks[(rank + 1 - step) % world], right)
        dist.recv(chunks[(rank - step) % world], left)
        sent.wait()
