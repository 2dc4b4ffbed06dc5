# expect: wrong_answer
# message: eps outside the square root
# fails-on: large-eps-float64
# Guards the division instead of the square root: x / (sqrt(mean(x²)) + eps). Indistinguishable at eps=1e-6
# on rows of unit scale, wrong as soon as eps is comparable to the mean square.
import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    xf = x.to(torch.promote_types(x.dtype, torch.float32))
    rms = xf.pow(2).mean(dim=-1, keepdim=True).sqrt()
    return (xf / (rms + eps) * weight).to(x.dtype)
