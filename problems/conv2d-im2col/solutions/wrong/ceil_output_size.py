# expect: wrong_answer
# message: H_out = floor(
# fails-on: stride-2-odd-size
# Rounds the number of window positions up, as pooling with ceil_mode does: where the stride does not
# divide the span, the last window would hang past the padded input, and the output is one pixel too large.
import math

import torch
import torch.nn.functional as F


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    n, c_in, h, w = x.shape
    c_out, cg, kh, kw = weight.shape
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    h_out = math.ceil((h + 2 * ph - dh * (kh - 1) - 1) / sh) + 1
    w_out = math.ceil((w + 2 * pw - dw * (kw - 1) - 1) / sw) + 1
    # Pad enough extra zeros at the end for the last, overhanging window.
    extra_h = (h_out - 1) * sh + dh * (kh - 1) + 1 - (h + 2 * ph)
    extra_w = (w_out - 1) * sw + dw * (kw - 1) + 1 - (w + 2 * pw)
    xp = F.pad(x, (pw, pw + extra_w, ph, ph + extra_h))
    cols = F.unfold(xp, (kh, kw), dilation=(dh, dw), stride=(sh, sw)).view(n, groups, cg * kh * kw, -1)
    out = (weight.view(groups, c_out // groups, -1) @ cols).reshape(n, c_out, h_out, w_out)
    return out if bias is None else out + bias.view(1, -1, 1, 1)
