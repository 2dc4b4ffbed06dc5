# expect: wrong_answer
# message: divided by d - 1
# fails-on: rows-float32
# Takes the variance from torch.var, whose default is the unbiased estimate (divided by d - 1): LayerNorm
# normalises by the biased one, so xhat and every gradient come out scaled wrongly.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    d = x.shape[-1]
    rstd = torch.rsqrt(x.var(dim=-1, keepdim=True) + eps)
    xhat = (x - x.mean(dim=-1, keepdim=True)) * rstd
    dxhat = dy * weight
    dx = rstd * (dxhat - dxhat.mean(dim=-1, keepdim=True) - xhat * (dxhat * xhat).mean(dim=-1, keepdim=True))
    return dx, (dy * xhat).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)
