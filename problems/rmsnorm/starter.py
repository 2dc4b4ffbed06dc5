import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMSNorm of x over its last dimension, scaled by weight: x / sqrt(mean(x^2) + eps) * weight.

    x is (..., d), weight is (d,) of x's dtype; the result has x's shape and dtype. For float16 and
    bfloat16 inputs, compute the statistic in float32. Differentiable with respect to x and weight.
    F.rms_norm, torch.rms_norm, nn.RMSNorm and F.layer_norm are not allowed here.
    """
    raise NotImplementedError
