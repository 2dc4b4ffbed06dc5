# expect: accepted
# torch.where on a mask drawn by comparison with 1 - p (keep when u < 1 - p), DropPath's expanded from one draw
# per sample to x's shape: no special case for p = 0 (every u < 1) or p = 1 (no u < 0, and 0 where dropped is
# chosen, never computed as 0 / 0), and eval returns x.
import torch


def _apply(x, keep, p):
    return torch.where(keep, x / (1 - p) if p < 1 else x, torch.zeros((), dtype=x.dtype, device=x.device))


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training:
        return x
    return _apply(x, torch.rand(x.shape, generator=generator, device=x.device) < 1 - p, p)


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training:
        return x
    keep = torch.rand(x.shape[0], generator=generator, device=x.device) < 1 - p
    return _apply(x, keep.view((-1,) + (1,) * (x.dim() - 1)).expand_as(x), p)
