# expect: wrong_answer
# message: dtype float32, expected float16
# fails-on: sequences-float16
# Upcasts to float32 for the statistic, as it should, and forgets to cast the result back to x's dtype.
import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    return xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.to(xf.dtype)
