import torch


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x                                            # the identity: nothing to draw, nothing to scale
    # Keep each unit with probability 1 - p: a uniform in [0, 1) is at least p that often.
    keep = torch.rand(x.shape, generator=generator, device=x.device) >= p
    # Inverted dropout: the kept units are divided by 1 - p now, so evaluation needs no scale at all.
    # At p = 1 every unit is dropped: multiply by the all-false mask, never divide by 1 - p = 0.
    return x * keep / (1 - p) if p < 1 else x * keep


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    # One draw per sample, broadcast over the rest of its dimensions: the branch is kept or dropped whole.
    keep = torch.rand((x.shape[0],) + (1,) * (x.dim() - 1), generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep
