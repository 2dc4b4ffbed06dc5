# expect: wrong_answer
# message: treats the mean as a constant
# fails-on: rows-float32
# Differentiates xhat = (x - mean) * rstd as if the mean did not depend on x: dx keeps the variance's term
# but not the mean's, so it no longer sums to zero over each row.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    centred = x - x.mean(dim=-1, keepdim=True)
    rstd = torch.rsqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps)
    xhat = centred * rstd
    dxhat = dy * weight
    dx = rstd * (dxhat - xhat * (dxhat * xhat).mean(dim=-1, keepdim=True))
    d = x.shape[-1]
    return dx, (dy * xhat).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)
