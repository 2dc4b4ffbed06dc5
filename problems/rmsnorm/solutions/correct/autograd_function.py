# expect: accepted
# A custom autograd.Function with the backward written out: with xhat = x / rms and u = w * dy,
# dx = (u - xhat * mean(u * xhat)) / rms and dw = the sum of dy * xhat over every leading dimension.
import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        compute = torch.promote_types(x.dtype, torch.float32)
        xf = x.to(compute)
        inv_rms = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)
        ctx.save_for_backward(x, weight, inv_rms)
        return (xf * inv_rms * weight.to(compute)).to(x.dtype)

    @staticmethod
    def backward(ctx, dy):
        x, weight, inv_rms = ctx.saved_tensors
        compute = inv_rms.dtype
        xhat = x.to(compute) * inv_rms
        dyf = dy.to(compute)
        u = dyf * weight.to(compute)
        dx = (u - xhat * (u * xhat).mean(dim=-1, keepdim=True)) * inv_rms
        dweight = (dyf * xhat).reshape(-1, x.shape[-1]).sum(dim=0)
        return dx.to(x.dtype), dweight.to(weight.dtype), None


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    return RMSNormFunction.apply(x, weight, eps)
