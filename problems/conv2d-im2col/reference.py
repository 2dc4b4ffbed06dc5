"""2-D cross-correlation as im2col: F.unfold gathers every receptive field into a column, one batched matmul
per group contracts the columns with the flattened kernels."""
import torch
import torch.nn.functional as F


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def conv2d(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> torch.Tensor:
    n, c_in, h, w = x.shape
    c_out, c_per_group, kh, kw = weight.shape
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    h_out = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    w_out = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    # (N, C_in * kH * kW, L): channel-major, so each group's rows are one contiguous block.
    cols = F.unfold(x, (kh, kw), dilation=(dh, dw), padding=(ph, pw), stride=(sh, sw))
    cols = cols.view(n, groups, c_per_group * kh * kw, h_out * w_out)
    kernels = weight.view(groups, c_out // groups, c_per_group * kh * kw)
    out = torch.matmul(kernels, cols)  # (N, groups, C_out / groups, L)
    out = out.reshape(n, c_out, h_out, w_out)
    if bias is not None:
        out = out + bias.view(1, c_out, 1, 1)
    return out
