# expect: accepted
# A hand-written autograd.Function: the forward draws the mask once and saves it, the backward multiplies the
# incoming gradient by the same mask and scale, so dropped units get exactly zero. One function serves both:
# DropPath's mask has shape (batch, 1, ..., 1) and broadcasts.
import torch


class _Masked(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, mask, scale):
        ctx.save_for_backward(mask)
        ctx.scale = scale
        return x * mask * scale

    @staticmethod
    def backward(ctx, grad):
        (mask,) = ctx.saved_tensors
        return grad * mask * ctx.scale, None, None


def _drop(x, p, training, generator, mask_shape):
    if not training or p == 0:
        return x
    uniform = torch.rand(mask_shape, generator=generator, device=x.device, dtype=torch.float64)
    mask = (uniform >= p).to(x.dtype)
    return _Masked.apply(x, mask, 0.0 if p == 1 else 1.0 / (1.0 - p))


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    return _drop(x, p, training, generator, x.shape)


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    return _drop(x, p, training, generator, (x.shape[0],) + (1,) * (x.dim() - 1))
