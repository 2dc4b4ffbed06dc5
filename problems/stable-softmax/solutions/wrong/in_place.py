# expect: wrong_answer
# message: modified in place
# Right values, but written over the caller's tensor: the caller's x is gone.
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    x.sub_(x.amax(dim=dim, keepdim=True))
    x.exp_()
    x.div_(x.sum(dim=dim, keepdim=True))
    return x
