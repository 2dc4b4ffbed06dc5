# expect: wrong_answer
# message: output is x times 1 - p
# fails-on: dropout-eval
# Right in training, then also scales by 1 - p at evaluation, as the original (non-inverted) dropout did: the
# two conventions mixed, so evaluation shrinks every activation.
import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training:
        return x * (1 - p)
    if p == 0:
        return x
    keep = torch.rand(x.shape, generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand((x.shape[0],) + (1,) * (x.dim() - 1), generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep

