# expect: accepted
# torch.var_mean with correction=0 (the biased variance LayerNorm uses), the row sums as einsum contractions,
# and dx in the 1/d form: rstd / d * (d * g - sum(g) - xhat * sum(g * xhat)).
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    d = x.shape[-1]
    var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
    rstd = (var + eps).rsqrt()
    xhat = (x - mean) * rstd
    g = dy * weight
    sum_g = torch.einsum("...d->...", g).unsqueeze(-1)
    sum_gx = torch.einsum("...d,...d->...", g, xhat).unsqueeze(-1)
    dx = rstd / d * (d * g - sum_g - xhat * sum_gx)
    return dx, torch.einsum("...d,...d->d", dy, xhat), torch.einsum("...d->d", dy)
