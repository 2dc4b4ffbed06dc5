# expect: wrong_answer
# message: bias
# fails-on: small-3x3
# Accepts bias and never adds it: right on every test without one, off by bias[c] on every pixel of
# channel c otherwise.
import torch
import torch.nn.functional as F


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    n, c_in, h, w = x.shape
    c_out, cg, kh, kw = weight.shape
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    h_out = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    w_out = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    cols = F.unfold(x, (kh, kw), dilation=(dh, dw), padding=(ph, pw), stride=(sh, sw)).view(n, groups, cg * kh * kw, -1)
    return (weight.view(groups, c_out // groups, -1) @ cols).reshape(n, c_out, h_out, w_out)
