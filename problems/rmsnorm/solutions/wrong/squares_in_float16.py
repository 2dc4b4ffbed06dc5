# expect: wrong_answer
# message: squares overflow float16
# fails-on: float16-squares-overflow
# Computes everything in the input's own dtype. For float16 an entry above 256 has a square above 65504, the
# largest float16: the mean of squares is inf, 1/rms is 0, and the whole row comes out as zeros.
import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight
