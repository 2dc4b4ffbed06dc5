# expect: time_limit_exceeded
# device: cuda
# tests: all
# Computes the answer on the default stream but queues heavy work on another stream and returns without
# waiting for it: the device-wide synchronize before the end event must count it.
import torch

_side = None


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    global _side
    if x.is_cuda:
        _side = _side or torch.cuda.Stream()
        with torch.cuda.stream(_side):
            a = torch.randn(4096, 4096, device=x.device)
            for _ in range(50):
                a = a @ a
                a = a / a.norm()
    e = (x - x.amax(dim, keepdim=True)).exp()
    return e / e.sum(dim, keepdim=True)
