# expect: time_limit_exceeded
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    while True:
        pass
