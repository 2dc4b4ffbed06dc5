# expect: accepted
# As a fused kernel tiles it: the rows in blocks, each block's dx written into its place, and dweight and
# dbias accumulated block by block.
import torch

BLOCK = 128


def layer_norm_backward(dy, x, weight, eps=1e-5):
    d = x.shape[-1]
    xs, dys = x.reshape(-1, d), dy.reshape(-1, d)
    dx = torch.empty_like(xs)
    dweight = torch.zeros_like(weight)
    dbias = torch.zeros_like(weight)
    for start in range(0, xs.shape[0], BLOCK):
        rows, grads = xs[start:start + BLOCK], dys[start:start + BLOCK]
        centred = rows - rows.mean(dim=1, keepdim=True)
        rstd = torch.rsqrt((centred * centred).mean(dim=1, keepdim=True) + eps)
        xhat = centred * rstd
        g = grads * weight
        c1 = g.mean(dim=1, keepdim=True)
        c2 = (g * xhat).mean(dim=1, keepdim=True)
        dx[start:start + BLOCK] = (g - c1 - xhat * c2) * rstd
        dweight += (grads * xhat).sum(dim=0)
        dbias += grads.sum(dim=0)
    return dx.reshape(x.shape), dweight, dbias
