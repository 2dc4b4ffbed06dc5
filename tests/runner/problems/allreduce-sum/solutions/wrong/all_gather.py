# expect: wrong_answer
# message: expected exactly one all_reduce
import torch
import torch.distributed as dist


def reduce_sum(x: torch.Tensor) -> torch.Tensor:
    parts = [torch.empty_like(x) for _ in range(dist.get_world_size())]
    dist.all_gather(parts, x)
    return torch.stack(parts).sum(0)
