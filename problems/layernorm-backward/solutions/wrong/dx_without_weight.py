# expect: wrong_answer
# message: leaving weight out of dx
# fails-on: rows-float32
# Propagates dy straight into the normalisation, forgetting that y = xhat * weight + bias scales it first:
# dweight and dbias are right, dx is not.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    centred = x - x.mean(dim=-1, keepdim=True)
    rstd = torch.rsqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps)
    xhat = centred * rstd
    dx = rstd * (dy - dy.mean(dim=-1, keepdim=True) - xhat * (dy * xhat).mean(dim=-1, keepdim=True))
    d = x.shape[-1]
    return dx, (dy * xhat).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)
