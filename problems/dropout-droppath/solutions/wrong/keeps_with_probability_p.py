# expect: wrong_answer
# message: keeping each unit with probability p
# fails-on: dropout-train
# Keeps a unit when u < p: p becomes the keep probability, so p = 0.3 drops 70% of the units (scaled by 1 / (1 - p)
# all the same).
import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand(x.shape, generator=generator, device=x.device) < p
    return x * keep / (1 - p) if p < 1 else x * keep


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand((x.shape[0],) + (1,) * (x.dim() - 1), generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep

