# expect: time_limit_exceeded
# message: the limit is 5× the reference's time and 1000 ms a call
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    while True:
        pass
