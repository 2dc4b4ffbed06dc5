# expect: wrong_answer
# message: never passed to a kernel
# Computes c with PyTorch on the host: the values are right, but nothing runs in a kernel. The host
# function may only allocate, take views and launch kernels.
import torch


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.matmul(a.float(), b.float())
