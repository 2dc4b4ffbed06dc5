# expect: accepted
# The sum of squares as a contraction of each row with itself, and the scaling by the statistic and the weight
# as one more contraction, at float32 or wider.
import torch


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    compute = torch.promote_types(x.dtype, torch.float32)
    xf, wf = x.to(compute), weight.to(compute)
    mean_square = torch.einsum("...d,...d->...", xf, xf) / x.shape[-1]
    scale = (mean_square + eps).rsqrt()
    return torch.einsum("...d,...,d->...d", xf, scale, wf).to(x.dtype)
