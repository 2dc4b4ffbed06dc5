# expect: wrong_answer
# message: keeps or drops a sample's whole branch
# fails-on: drop-path-train
# DropPath written as dropout: a mask of x's full shape, so every sample keeps part of its branch, where
# stochastic depth skips the whole branch of a sample.
import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand(x.shape, generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand(x.shape, generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep
