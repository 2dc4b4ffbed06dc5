# expect: forbidden
# message: aten::_fused_rms_norm
# device: cuda
# fails-on: tokens-float32
# The library call. On CUDA it reaches the fused kernel aten::_fused_rms_norm, which is refused; on the CPU
# PyTorch builds it from elementary operators, which the judge cannot tell from a hand-written RMSNorm.
import torch
import torch.nn.functional as F


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    return F.rms_norm(x, (x.shape[-1],), weight, eps)
