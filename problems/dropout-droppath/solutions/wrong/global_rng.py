# expect: wrong_answer
# message: seeded alike
# fails-on: dropout-train
# Right masks, but drawn from torch's global generator: the generator it is handed is ignored, so the same
# seed does not reproduce the same masks.
import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand(x.shape, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand((x.shape[0],) + (1,) * (x.dim() - 1), generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep

