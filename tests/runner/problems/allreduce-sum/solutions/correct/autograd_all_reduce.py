# expect: accepted
import torch
import torch.distributed.nn


def reduce_sum(x: torch.Tensor) -> torch.Tensor:
    return torch.distributed.nn.functional.all_reduce(x)
