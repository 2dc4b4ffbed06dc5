# expect: wrong_answer
# message: divides 0 by 0
# fails-on: dropout-p-one
# x * mask / (1 - p) with no case for p = 1: every unit is dropped and divided by 0, so the output is NaN.
import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training:
        return x
    return x * (torch.rand(x.shape, generator=generator, device=x.device) >= p) / (1 - p)


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand((x.shape[0],) + (1,) * (x.dim() - 1), generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep

