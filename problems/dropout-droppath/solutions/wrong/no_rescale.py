# expect: wrong_answer
# message: not rescaled
# fails-on: dropout-train
# Zeroes the dropped units and leaves the kept ones as they are: the expected output is (1 - p) x, so a network
# trained with it sees larger activations at evaluation, where dropout is off.
import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training:
        return x
    return x * (torch.rand(x.shape, generator=generator, device=x.device) >= p)


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand((x.shape[0],) + (1,) * (x.dim() - 1), generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep

