# expect: wrong_answer
# mistake: the custom autograd.Function receives only x, so autograd never asks it for the parameters' gradients and they stay None
# message: parameter
import torch
from torch import nn


class _Recompute(torch.autograd.Function):
    @staticmethod
    def forward(ctx, block, x):
        ctx.block = block
        ctx.rng = torch.get_rng_state()
        ctx.save_for_backward(x)
        return block(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        detached = x.detach().requires_grad_()
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.rng)
            with torch.enable_grad():
                out = ctx.block(detached)
        (grad_x,) = torch.autograd.grad(out, detached, grad_out)
        return None, grad_x


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not (self.training and torch.is_grad_enabled()):
            return self.block(x)
        return _Recompute.apply(self.block, x)
