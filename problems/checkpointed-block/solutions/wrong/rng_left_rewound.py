# expect: wrong_answer
# mistake: rewinds the RNG to the forward state for the recomputation but never restores it, so after backward the stream is rewound and the next step's dropout masks repeat earlier ones
# message: RNG
import torch
from torch import nn


class _Recompute(torch.autograd.Function):
    @staticmethod
    def forward(ctx, block, x, *params):
        ctx.block = block
        ctx.rng = torch.get_rng_state()
        ctx.autocast = (x.device.type, torch.is_autocast_enabled(x.device.type),
                        torch.get_autocast_dtype(x.device.type))
        ctx.save_for_backward(x)
        return block(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        detached = x.detach().requires_grad_(ctx.needs_input_grad[1])
        torch.set_rng_state(ctx.rng)
        device_type, enabled, dtype = ctx.autocast
        with torch.enable_grad(), torch.autocast(device_type, enabled=enabled, dtype=dtype):
            out = ctx.block(detached)
        candidates = [detached, *ctx.block.parameters()]
        needed = [t for t, need in zip(candidates, ctx.needs_input_grad[1:]) if need]
        grads = iter(torch.autograd.grad(out, needed, grad_out, allow_unused=True))
        return (None, *(next(grads) if need else None for need in ctx.needs_input_grad[1:]))


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not (self.training and torch.is_grad_enabled()):
            return self.block(x)
        return _Recompute.apply(self.block, x, *self.block.parameters())
