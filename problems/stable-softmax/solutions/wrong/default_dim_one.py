# expect: wrong_answer
# message: dim left at its default
# The default dim of classification code, where logits are (batch, classes): right whenever dim is passed,
# and for 2-D inputs, but softmax(x) of a 3-D tensor must normalise the last dimension, not dimension 1.
import torch


def softmax(x: torch.Tensor, dim: int = 1) -> torch.Tensor:
    shifted = x - x.amax(dim=dim, keepdim=True)
    e = shifted.exp()
    return e / e.sum(dim=dim, keepdim=True)
