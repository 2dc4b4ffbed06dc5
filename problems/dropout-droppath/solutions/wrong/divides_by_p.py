# expect: wrong_answer
# message: divided by p, the drop probability
# fails-on: dropout-train
# Divides the kept units by p instead of by the keep probability 1 - p.
import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand(x.shape, generator=generator, device=x.device) >= p
    return x * keep / p


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand((x.shape[0],) + (1,) * (x.dim() - 1), generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep

