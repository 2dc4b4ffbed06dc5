import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax of x along dim, without overflow for large inputs, differentiable with respect to x.

    torch.softmax, F.softmax, Tensor.softmax and the log-softmax family are not allowed here.
    """
    raise NotImplementedError
