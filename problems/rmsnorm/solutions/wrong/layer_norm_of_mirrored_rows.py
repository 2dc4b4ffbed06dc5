# expect: forbidden
# message: aten::native_layer_norm
# fails-on: tokens-float32
# A row and its negation together have mean 0 and variance mean(x²), so LayerNorm of cat([x, -x]) is
# RMSNorm on its first half: a library normalisation kernel doing the work.
import torch
import torch.nn.functional as F


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    d = x.shape[-1]
    xf = x.to(torch.promote_types(x.dtype, torch.float32))
    mirrored = F.layer_norm(torch.cat([xf, -xf], dim=-1), (2 * d,), eps=eps)
    return (mirrored[..., :d] * weight).to(x.dtype)
