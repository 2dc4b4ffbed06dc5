# expect: time_limit_exceeded
# Right, one sample at a time: a Python loop with a draw, a multiplication and a stack of its own per sample,
# where one (batch, 1, ..., 1) mask broadcasts in a single operation.
import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand(x.shape, generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    rows = []
    for b in range(x.shape[0]):
        keep = torch.rand((), generator=generator, device=x.device) >= p
        rows.append(x[b] * keep / (1 - p) if p < 1 else x[b] * keep)
    return torch.stack(rows)
