# expect: wrong_answer
# message: timed call
# tests: all
# Caches results by the input's data pointer: free in a benchmark that reuses one buffer, wrong when the
# buffer holds new values.
import torch

_cache = {}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    key = (x.data_ptr(), tuple(x.shape), dim, x.requires_grad)
    if key not in _cache:
        e = (x - x.amax(dim, keepdim=True)).exp()
        _cache[key] = e / e.sum(dim, keepdim=True)
    return _cache[key]
