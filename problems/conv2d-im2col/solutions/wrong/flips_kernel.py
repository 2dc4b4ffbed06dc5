# expect: wrong_answer
# message: flipped kernel
# fails-on: small-3x3
# The textbook convolution, with the kernel rotated by 180 degrees. Deep-learning "convolution" is
# cross-correlation: out[i, j] = sum of w[a, b] · x[i + a, j + b], the kernel as stored.
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
    kernels = weight.flip(-2, -1).reshape(groups, c_out // groups, -1)
    out = (kernels @ cols).reshape(n, c_out, h_out, w_out)
    return out if bias is None else out + bias.view(1, -1, 1, 1)
