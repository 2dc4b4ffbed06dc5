# expect: accepted
# style: a custom torch.autograd.Function that saves only the input and replays the block in backward
import torch
from torch import nn


class _Recompute(torch.autograd.Function):
    @staticmethod
    def forward(ctx, block, x, *params):
        ctx.block = block
        ctx.cuda_devices = [x.get_device()] if x.is_cuda else []
        ctx.cpu_rng = torch.get_rng_state()
        ctx.cuda_rng = [torch.cuda.get_rng_state(d) for d in ctx.cuda_devices]
        ctx.autocast = (x.device.type, torch.is_autocast_enabled(x.device.type),
                        torch.get_autocast_dtype(x.device.type))
        ctx.save_for_backward(x)
        # Function.forward already runs with grad disabled: the block's activations are freed as it goes.
        return block(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        detached = x.detach().requires_grad_(ctx.needs_input_grad[1])
        # fork_rng puts the caller's stream back afterwards, so the replayed dropout draws do not shift the
        # masks of whatever runs next (the next block's recomputation, the next training step).
        with torch.random.fork_rng(devices=ctx.cuda_devices):
            torch.set_rng_state(ctx.cpu_rng)
            for device, state in zip(ctx.cuda_devices, ctx.cuda_rng):
                torch.cuda.set_rng_state(state, device)
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
        # The parameters go in as inputs so that autograd asks this Function for their gradients even when
        # x itself does not require grad.
        return _Recompute.apply(self.block, x, *self.block.parameters())
