# expect: wrong_answer
# message: that is LayerNorm
# fails-on: tokens-float32
# Centres each row before dividing by its standard deviation: LayerNorm without a bias, not RMSNorm.
import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    xf = x.to(torch.promote_types(x.dtype, torch.float32))
    centred = xf - xf.mean(dim=-1, keepdim=True)
    return (centred * torch.rsqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps) * weight).to(x.dtype)
