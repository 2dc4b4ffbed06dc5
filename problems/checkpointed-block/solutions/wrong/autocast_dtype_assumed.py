# expect: wrong_answer
# mistake: the replay remembers whether autocast was on but not its dtype, so it recomputes in autocast's default (bfloat16 on the CPU) what a float16 forward computed, and the gradients belong to another forward
# message: float16
import torch
from torch import nn


class _Recompute(torch.autograd.Function):
    @staticmethod
    def forward(ctx, block, x, *params):
        ctx.block = block
        ctx.cuda_devices = [x.get_device()] if x.is_cuda else []
        ctx.cpu_rng = torch.get_rng_state()
        ctx.cuda_rng = [torch.cuda.get_rng_state(d) for d in ctx.cuda_devices]
        ctx.autocast = x.device.type, torch.is_autocast_enabled(x.device.type)
        ctx.save_for_backward(x)
        return block(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        detached = x.detach().requires_grad_(ctx.needs_input_grad[1])
        with torch.random.fork_rng(devices=ctx.cuda_devices):
            torch.set_rng_state(ctx.cpu_rng)
            for device, state in zip(ctx.cuda_devices, ctx.cuda_rng):
                torch.cuda.set_rng_state(state, device)
            device_type, enabled = ctx.autocast
            with torch.enable_grad(), torch.autocast(device_type, enabled=enabled):
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
