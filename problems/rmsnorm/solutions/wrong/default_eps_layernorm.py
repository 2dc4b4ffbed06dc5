# expect: wrong_answer
# message: 1e-5 (LayerNorm's)
# fails-on: default-eps-small-activations
# Takes LayerNorm's default eps, 1e-5, where the interface pins Llama's 1e-6: right whenever eps is passed,
# wrong on small activations when it is left out.
import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    xf = x.to(torch.promote_types(x.dtype, torch.float32))
    return (xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps) * weight).to(x.dtype)
