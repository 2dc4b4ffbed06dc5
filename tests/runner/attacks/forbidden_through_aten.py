# expect: forbidden
# message: aten::_softmax
import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return torch.ops.aten._softmax.default(x, dim, False)
