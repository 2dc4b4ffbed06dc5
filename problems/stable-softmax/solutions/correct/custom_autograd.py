# expect: accepted
# An autograd.Function with a hand-written backward: saves only the output, as the fused kernels do.
import torch


class _StableSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        maximum = x.max(dim=dim, keepdim=True).values
        e = torch.exp(x - maximum)
        y = e / e.sum(dim=dim, keepdim=True)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, grad_y):
        (y,) = ctx.saved_tensors
        # dL/dx = y * (g - <g, y>) along dim: the Jacobian diag(y) - y y^T applied to g.
        return y * (grad_y - (grad_y * y).sum(dim=ctx.dim, keepdim=True)), None


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return _StableSoftmax.apply(x, dim)
