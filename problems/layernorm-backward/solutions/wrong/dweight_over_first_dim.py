# expect: wrong_answer
# message: dweight: shape (3, 8), expected (8,)
# fails-on: sequences-float64
# Sums dweight and dbias over the batch dimension only, as for a (tokens, d) input: for (batch, time, d) the
# weight is shared by every position too, so the sum runs over every leading dimension.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    centred = x - x.mean(dim=-1, keepdim=True)
    rstd = torch.rsqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps)
    xhat = centred * rstd
    dxhat = dy * weight
    dx = rstd * (dxhat - dxhat.mean(dim=-1, keepdim=True) - xhat * (dxhat * xhat).mean(dim=-1, keepdim=True))
    return dx, (dy * xhat).sum(dim=0), dy.sum(dim=0)
