# expect: wrong_answer
# message: channels of the groups interleaved
# fails-on: two-groups
# Splits the channels into groups with the group index innermost, view(C_in / groups, groups, ...), so
# group g gets channels g, g + groups, g + 2·groups... instead of the contiguous block g·C_in/groups onwards.
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
    cols = F.unfold(x, (kh, kw), dilation=(dh, dw), padding=(ph, pw), stride=(sh, sw))
    cols = cols.view(n, cg, groups, kh * kw, -1).transpose(1, 2).reshape(n, groups, cg * kh * kw, -1)
    kernels = weight.view(c_out // groups, groups, -1).transpose(0, 1)
    out = (kernels @ cols).transpose(1, 2).reshape(n, c_out, h_out, w_out)
    return out if bias is None else out + bias.view(1, -1, 1, 1)
