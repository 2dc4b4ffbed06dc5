import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    """Sum `tensor` over every rank of the default group, in place, with point-to-point sends and receives
    only: a reduce-scatter round the ring, then an all-gather round the ring."""
    rank, world = dist.get_rank(), dist.get_world_size()
    raise NotImplementedError
