# expect: forbidden
# mistake: calls the library's own all-reduce, which is what the problem asks to build from sends and receives
# message: c10d::allreduce_
import torch
import torch.distributed as dist


def ring_all_reduce(tensor: torch.Tensor) -> None:
    dist.all_reduce(tensor)
