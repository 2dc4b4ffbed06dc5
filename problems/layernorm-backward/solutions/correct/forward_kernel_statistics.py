# expect: accepted
# Takes the mean and 1/sigma from LayerNorm's forward kernel (allowed: nothing requires grad, so no graph is
# recorded), then applies the backward formula in flattened rows, with dweight and dbias as matrix products.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    d = x.shape[-1]
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, [d], None, None, eps)
    xhat = ((x - mean) * rstd).reshape(-1, d)
    g = dy.reshape(-1, d) * weight
    dx = rstd.reshape(-1, 1) * (g - g.mean(dim=1, keepdim=True) - xhat * (g * xhat).mean(dim=1, keepdim=True))
    ones = torch.ones(1, xhat.shape[0], dtype=x.dtype, device=x.device)
    rows = dy.reshape(-1, d)
    return dx.reshape(x.shape), (ones @ (rows * xhat)).reshape(d), (ones @ rows).reshape(d)
