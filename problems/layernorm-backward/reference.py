"""The backward pass of LayerNorm over the last dimension, by hand: dx, dweight and dbias from dy."""
import torch


def layer_norm_backward(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor,
                        eps: float = 1e-5) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    # Forward: xhat = (x - mean) * rstd with rstd = 1 / sqrt(var + eps), var biased; y = xhat * weight + bias.
    mean = x.mean(dim=-1, keepdim=True)
    centred = x - mean
    rstd = torch.rsqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps)
    xhat = centred * rstd
    # dxhat = dy * weight; the mean and the variance both depend on x, which gives the two subtracted terms.
    dxhat = dy * weight
    dx = rstd * (dxhat - dxhat.mean(dim=-1, keepdim=True) - xhat * (dxhat * xhat).mean(dim=-1, keepdim=True))
    rows = dy.reshape(-1, x.shape[-1])
    dweight = (rows * xhat.reshape(-1, x.shape[-1])).sum(dim=0)
    dbias = rows.sum(dim=0)
    return dx, dweight, dbias
