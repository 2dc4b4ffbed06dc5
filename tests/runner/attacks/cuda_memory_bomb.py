# expect: memory_limit_exceeded
# device: cuda
# Fills the GPU until CUDA refuses: an out-of-memory error is a memory verdict, and the next judge on
# this GPU must find its memory free again (the sandbox's process is gone).
import torch

hoard = []


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    while True:
        hoard.append(torch.ones(1 << 30, device=x.device))  # 4 GiB each
