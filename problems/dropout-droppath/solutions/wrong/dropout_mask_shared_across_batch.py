# expect: wrong_answer
# message: one mask shared by every sample
# fails-on: dropout-train
# Draws one mask of shape x.shape[1:] and broadcasts it over the batch: every sample loses the same units.
import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand(x.shape[1:], generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand((x.shape[0],) + (1,) * (x.dim() - 1), generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep

