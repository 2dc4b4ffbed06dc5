import torch
import torch.nn.functional as F
from torch import nn


class SwiGLU(nn.Module):
    """`w2(silu(w1(x)) * w3(x))` over the last axis of `x`.

    `w1` is the gate, `w3` the up and `w2` the down projection, all bias-free.
    """

    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Map `x` of shape `(..., d_model)` to the same shape."""
        raise NotImplementedError
