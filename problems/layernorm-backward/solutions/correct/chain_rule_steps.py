# expect: accepted
# The backward pass node by node, as the forward pass computes it (mean, centred, var, rstd, xhat, y), each
# gradient from the one after it; the mean and the variance collect contributions from every feature.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    d = x.shape[-1]
    mean = x.mean(dim=-1, keepdim=True)
    centred = x - mean
    var = (centred * centred).mean(dim=-1, keepdim=True)
    rstd = 1.0 / torch.sqrt(var + eps)
    xhat = centred * rstd

    dxhat = dy * weight
    drstd = (dxhat * centred).sum(dim=-1, keepdim=True)
    dvar = drstd * -0.5 * rstd.pow(3)
    dcentred = dxhat * rstd + dvar * 2.0 * centred / d
    dmean = -dcentred.sum(dim=-1, keepdim=True)
    dx = dcentred + dmean / d

    # sum_to_size sums over every dimension broadcast against weight's (d,), none for a 1-D input.
    return dx, (dy * xhat).sum_to_size(weight.shape), dy.sum_to_size(weight.shape)
