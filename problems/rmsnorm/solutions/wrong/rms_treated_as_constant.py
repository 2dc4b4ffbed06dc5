# expect: wrong_answer
# message: treats 1/rms as a constant
# fails-on: tokens-float32
# A hand-written backward that differentiates y = x * w / rms as if rms did not depend on x: the forward
# pass and weight.grad are right, x.grad misses the term that flows through the mean of squares.
import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        xf = x.to(torch.promote_types(x.dtype, torch.float32))
        inv_rms = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)
        ctx.save_for_backward(xf, weight, inv_rms)
        return (xf * inv_rms * weight).to(x.dtype)

    @staticmethod
    def backward(ctx, dy):
        xf, weight, inv_rms = ctx.saved_tensors
        dx = dy.to(xf.dtype) * weight * inv_rms
        dweight = (dy.to(xf.dtype) * xf * inv_rms).reshape(-1, xf.shape[-1]).sum(dim=0)
        return dx.to(dy.dtype), dweight.to(weight.dtype), None


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    return RMSNormFunction.apply(x, weight, eps)
