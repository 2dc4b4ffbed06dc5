# expect: accepted
# One matmul per kernel offset: for tap (i, j), the padded input strided from row i·dilation and column
# j·dilation lines up with every output pixel at once, and kH·kW such products are summed.
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
    kernels = weight.view(groups, c_out // groups, cg, kh, kw)
    out = x.new_zeros(n, groups, c_out // groups, h_out, w_out)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dh, i * dh + sh * (h_out - 1) + 1, sh)
            cols = slice(j * dw, j * dw + sw * (w_out - 1) + 1, sw)
            out = out + torch.einsum("ngchw,goc->ngohw", xp[..., rows, cols], kernels[..., i, j])
    out = out.reshape(n, c_out, h_out, w_out)
    if bias is not None:
        out = out + bias.view(1, -1, 1, 1)
    return out
