# expect: wrong_answer
# message: ran 3 times for one forward and backward
# A checkpointing Function whose backward first replays the block without grad (to look at its output) and then
# again with grad for the gradients: right values, right memory, but every block runs three times a step where
# checkpointing needs two, a third more compute than the method costs.
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
        device_type, enabled, dtype = ctx.autocast
        with torch.random.fork_rng(devices=[]), torch.autocast(device_type, enabled=enabled, dtype=dtype):
            torch.set_rng_state(ctx.rng)
            with torch.no_grad():
                ctx.block(x)
            torch.set_rng_state(ctx.rng)
            detached = x.detach().requires_grad_(ctx.needs_input_grad[1])
            with torch.enable_grad():
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
