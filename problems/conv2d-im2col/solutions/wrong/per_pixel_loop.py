# expect: time_limit_exceeded
# fails-on: timed-48x48
# The definition written out: one Python iteration per output pixel, each a small contraction of the
# receptive field with the kernels. Right values, but H_out·W_out tiny kernels and as many autograd nodes.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    ph, pw = (padding, padding) if isinstance(padding, int) else padding
    dh, dw = (dilation, dilation) if isinstance(dilation, int) else dilation
    n, c_in, h, w = x.shape
    c_out, cg, kh, kw = weight.shape
    h_out = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    w_out = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    xp = F.pad(x, (pw, pw, ph, ph)).view(n, groups, cg, h + 2 * ph, w + 2 * pw)
    kernels = weight.view(groups, c_out // groups, cg * kh * kw)
    pixels = []
    for i in range(h_out):
        for j in range(w_out):
            field = xp[..., i * sh:i * sh + dh * (kh - 1) + 1:dh, j * sw:j * sw + dw * (kw - 1) + 1:dw]
            pixels.append(torch.einsum("gok,ngk->ngo", kernels, field.reshape(n, groups, -1)))
    out = torch.stack(pixels, dim=-1).reshape(n, c_out, h_out, w_out)
    return out if bias is None else out + bias.view(1, -1, 1, 1)
