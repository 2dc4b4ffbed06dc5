"""RMSNorm over the last dimension, with the statistic in float32 for half-precision inputs."""
import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    # float16 and bfloat16 are computed in float32 (a square overflows float16 above 256); float32 and float64
    # in their own dtype. The result comes back in x's dtype.
    compute = torch.promote_types(x.dtype, torch.float32)
    xf = x.to(compute)
    inv_rms = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (xf * inv_rms * weight.to(compute)).to(x.dtype)
