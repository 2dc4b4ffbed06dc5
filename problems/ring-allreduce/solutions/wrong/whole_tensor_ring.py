# expect: wrong_answer
# mistake: passes whole tensors round the ring, p-1 steps each forwarding the tensor last received and adding
# it: the right sum, but every rank sends (p-1)·N elements instead of 2(p-1)/p·N
# message: passing the whole tensor round the ring
# fails-on: w3-indivisible
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    passing = tensor.clone()
    for _ in range(world - 1):
        arriving = torch.empty_like(tensor)
        sent = dist.isend(passing, (rank + 1) % world)
        dist.recv(arriving, (rank - 1) % world)
        sent.wait()
        tensor += arriving
        passing = arriving
