# expect: wrong_answer
# message: one draw for the whole batch
# fails-on: drop-path-train
# One random number for the whole batch: every sample's branch is kept or dropped together, so the batch's
# gradient noise is far larger than stochastic depth's per-sample draws give.
import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand(x.shape, generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand(1, generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep
