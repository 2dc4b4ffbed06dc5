# expect: wrong_answer
# message: treats the variance as a constant
# fails-on: rows-float32
# Differentiates xhat = (x - mean) * rstd as if rstd did not depend on x: dx = rstd * (g - mean(g)), the
# gradient of centring alone.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    centred = x - x.mean(dim=-1, keepdim=True)
    rstd = torch.rsqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps)
    dxhat = dy * weight
    dx = rstd * (dxhat - dxhat.mean(dim=-1, keepdim=True))
    d = x.shape[-1]
    return dx, (dy * centred * rstd).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)
