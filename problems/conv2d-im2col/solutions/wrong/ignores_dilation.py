# expect: wrong_answer
# message: dilation·(kH − 1)
# fails-on: dilation-2
# Unfolds with kernel, padding and stride but leaves dilation out: the taps are adjacent pixels, and
# the output size is computed without dilation too, so a dilated test gets the wrong shape or values.
import torch
import torch.nn.functional as F


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    n, c_in, h, w = x.shape
    c_out, cg, kh, kw = weight.shape
    (sh, sw), (ph, pw) = _pair(stride), _pair(padding)
    h_out, w_out = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
    cols = F.unfold(x, (kh, kw), padding=(ph, pw), stride=(sh, sw)).view(n, groups, cg * kh * kw, -1)
    out = (weight.view(groups, c_out // groups, -1) @ cols).reshape(n, c_out, h_out, w_out)
    return out if bias is None else out + bias.view(1, -1, 1, 1)
