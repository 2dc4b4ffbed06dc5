# expect: wrong_answer
# message: dim=1
# Always normalises the last dimension: right for the first test, wrong as soon as dim is another one.
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    shifted = x - x.amax(dim=-1, keepdim=True)
    e = shifted.exp()
    return e / e.sum(dim=-1, keepdim=True)
