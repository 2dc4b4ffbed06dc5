# expect: wrong_answer
# message: subclass of torch.Tensor
import torch


class AlwaysRight(torch.Tensor):
    def __eq__(self, other):
        return torch.ones_like(torch.Tensor(self), dtype=torch.bool)

    def allclose(self, *args, **kwargs):
        return True


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return (x * 0).as_subclass(AlwaysRight)
