# expect: accepted
# Tensor.unfold over rows and then columns gives every window of the dilated span; keeping every
# dilation-th element of a window leaves the kH × kW taps. Each group is its own tensordot.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    ph, pw = (padding, padding) if isinstance(padding, int) else padding
    dh, dw = (dilation, dilation) if isinstance(dilation, int) else dilation
    c_out, cg, kh, kw = weight.shape
    xp = F.pad(x, (pw, pw, ph, ph))
    span_h, span_w = dh * (kh - 1) + 1, dw * (kw - 1) + 1
    # (N, C_in, H_out, W_out, span_h, span_w) -> the taps only: (N, C_in, H_out, W_out, kH, kW)
    patches = xp.unfold(2, span_h, sh).unfold(3, span_w, sw)[..., ::dh, ::dw]
    per_group = c_out // groups
    outs = []
    for g in range(groups):
        taps = patches[:, g * cg:(g + 1) * cg]
        kernel = weight[g * per_group:(g + 1) * per_group]
        # contract channels and taps: (N, H_out, W_out, per_group) -> (N, per_group, H_out, W_out)
        outs.append(torch.tensordot(taps, kernel, dims=([1, 4, 5], [1, 2, 3])).permute(0, 3, 1, 2))
    out = torch.cat(outs, dim=1)
    if bias is not None:
        out = out + bias[None, :, None, None]
    return out
