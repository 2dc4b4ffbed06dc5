# expect: wrong_answer
# message: modified in place
# fails-on: tokens-float32
# Normalises x in place to save a copy: the values are right, but the caller's activations are gone.
import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    inv_rms = torch.rsqrt(x.float().pow(2).mean(dim=-1, keepdim=True) + eps)
    if x.requires_grad:
        return (x.float() * inv_rms * weight.float()).to(x.dtype)
    return x.mul_(inv_rms.to(x.dtype)).mul_(weight)
