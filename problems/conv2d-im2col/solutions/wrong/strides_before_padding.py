# expect: wrong_answer
# message: stride taken before padding
# fails-on: stride-2-padding-1
# Subsamples the input by the stride first and then convolves the smaller image with stride 1 and the
# padding: the window origins land on the wrong pixels (and the kernel's taps skip rows), although for
# many sizes the output has exactly the right shape.
import torch
import torch.nn.functional as F


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    c_out, cg, kh, kw = weight.shape
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    xs = x[:, :, ::sh, ::sw]
    n, c_in, h, w = xs.shape
    h_out = (h + 2 * ph - dh * (kh - 1) - 1) + 1
    w_out = (w + 2 * pw - dw * (kw - 1) - 1) + 1
    cols = F.unfold(xs, (kh, kw), dilation=(dh, dw), padding=(ph, pw)).view(n, groups, cg * kh * kw, -1)
    out = (weight.view(groups, c_out // groups, -1) @ cols).reshape(n, c_out, h_out, w_out)
    return out if bias is None else out + bias.view(1, -1, 1, 1)
