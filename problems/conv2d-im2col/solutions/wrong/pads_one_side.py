# expect: wrong_answer
# message: padding on one side only
# fails-on: small-3x3
# Pads 2·padding zeros after the last row and column instead of padding before and after: the output has
# the right size, but every window is shifted by padding pixels up and to the left.
import torch
import torch.nn.functional as F


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    n, c_in, h, w = x.shape
    c_out, cg, kh, kw = weight.shape
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    xp = F.pad(x, (0, 2 * pw, 0, 2 * ph))
    h_out = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    w_out = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    cols = F.unfold(xp, (kh, kw), dilation=(dh, dw), stride=(sh, sw)).view(n, groups, cg * kh * kw, -1)
    out = (weight.view(groups, c_out // groups, -1) @ cols).reshape(n, c_out, h_out, w_out)
    return out if bias is None else out + bias.view(1, -1, 1, 1)
