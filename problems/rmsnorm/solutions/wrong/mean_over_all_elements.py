# expect: wrong_answer
# message: over the whole tensor
# fails-on: tokens-float32
# Forgets the dimension of the mean: one root mean square for the whole batch instead of one per row.
import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    xf = x.to(torch.promote_types(x.dtype, torch.float32))
    return (xf * torch.rsqrt(xf.pow(2).mean() + eps) * weight).to(x.dtype)
