# expect: runtime_error
# message: rank 0 waited 0.5 s
# Rank 0 issues a second all-reduce that no other rank joins: it must fail as soon as every rank is seen
# asleep, not hang the judge or wait out the collective timeout.
import torch
import torch.distributed as dist


def reduce_sum(x: torch.Tensor) -> torch.Tensor:
    total = x.clone()
    dist.all_reduce(total)
    if dist.get_rank() == 0:
        dist.all_reduce(torch.zeros(1))
    return total
