# expect: runtime_error
# message: rank 0
# Rank 0 issues a second all-reduce that no other rank joins: it must fail when the collective times out,
# not hang the judge.
import torch
import torch.distributed as dist


def reduce_sum(x: torch.Tensor) -> torch.Tensor:
    total = x.clone()
    dist.all_reduce(total)
    if dist.get_rank() == 0:
        dist.all_reduce(torch.zeros(1))
    return total
