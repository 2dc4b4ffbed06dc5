# expect: wrong_answer
# mistake: rank 0 receives every tensor, sums them and sends the sum back to each rank: the right answer, but
# rank 0 sends (p-1)·N elements while a ring's ranks send 2(p-1)/p·N each
# message: gathering every tensor to one rank
# fails-on: w3-indivisible
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    if rank == 0:
        buffer = torch.empty_like(tensor)
        for source in range(1, world):
            dist.recv(buffer, source)
            tensor += buffer
        for destination in range(1, world):
            dist.send(tensor, destination)
    else:
        dist.send(tensor, 0)
        dist.recv(tensor, 0)
