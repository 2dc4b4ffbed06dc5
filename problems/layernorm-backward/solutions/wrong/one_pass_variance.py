# expect: wrong_answer
# message: cancels catastrophically
# fails-on: large-offset-float32
# Takes the variance in one pass as mean(x²) - mean(x)², the textbook identity. In float32, rows whose mean
# is large next to their spread lose every significant digit of the difference.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    mean = x.mean(dim=-1, keepdim=True)
    var = (x * x).mean(dim=-1, keepdim=True) - mean * mean
    rstd = torch.rsqrt(var.clamp_min(0) + eps)
    xhat = (x - mean) * rstd
    dxhat = dy * weight
    dx = rstd * (dxhat - dxhat.mean(dim=-1, keepdim=True) - xhat * (dxhat * xhat).mean(dim=-1, keepdim=True))
    d = x.shape[-1]
    return dx, (dy * xhat).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)
