# expect: accepted
# Llama's own code: the statistic in float32, the normalised x cast back to the input's dtype, and only then
# scaled by the weight, in that dtype.
import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return weight * normed.type_as(x)
