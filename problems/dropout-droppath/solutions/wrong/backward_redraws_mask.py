# expect: wrong_answer
# message: never draw a new one
# fails-on: dropout-train
# A hand-written autograd.Function that saves the generator instead of the mask and draws the mask again in
# backward: the second draw continues the generator's stream, so the gradient flows through other units than
# the output kept.
import torch


class _Dropout(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, p, generator):
        ctx.p, ctx.generator = p, generator
        return x * (torch.rand(x.shape, generator=generator) >= p) / (1 - p)

    @staticmethod
    def backward(ctx, grad):
        keep = torch.rand(grad.shape, generator=ctx.generator) >= ctx.p
        return grad * keep / (1 - ctx.p), None, None


def dropout(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    if p == 1:
        return x * 0
    return _Dropout.apply(x, p, generator)


def drop_path(x: torch.Tensor, p: float, training: bool, *, generator: torch.Generator) -> torch.Tensor:
    if not training or p == 0:
        return x
    keep = torch.rand((x.shape[0],) + (1,) * (x.dim() - 1), generator=generator, device=x.device) >= p
    return x * keep / (1 - p) if p < 1 else x * keep

