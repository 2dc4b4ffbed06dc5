# expect: accepted
# No copy of the receptive fields at all: the padded input seen through as_strided as a
# (N, groups, C_in/groups, H_out, W_out, kH, kW) window view, contracted with the kernels in one einsum.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    ph, pw = (padding, padding) if isinstance(padding, int) else padding
    dh, dw = (dilation, dilation) if isinstance(dilation, int) else dilation
    n, c_in = x.shape[:2]
    c_out, cg, kh, kw = weight.shape
    xp = F.pad(x, (pw, pw, ph, ph)).contiguous()
    hp, wp = xp.shape[2:]
    h_out, w_out = (hp - dh * (kh - 1) - 1) // sh + 1, (wp - dw * (kw - 1) - 1) // sw + 1
    s_n, s_c, s_h, s_w = xp.stride()
    windows = xp.as_strided((n, groups, cg, h_out, w_out, kh, kw),
                            (s_n, cg * s_c, s_c, sh * s_h, sw * s_w, dh * s_h, dw * s_w))
    out = torch.einsum("ngchwij,gocij->ngohw", windows, weight.view(groups, c_out // groups, cg, kh, kw))
    out = out.reshape(n, c_out, h_out, w_out)
    return out if bias is None else out + bias[:, None, None]
