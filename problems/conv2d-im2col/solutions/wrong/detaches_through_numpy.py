# expect: wrong_answer
# message: does not require grad
# fails-on: small-3x3
# Does the im2col by hand in NumPy for speed and wraps the result back in a tensor: the values are right,
# but the graph is cut, so no gradient reaches x, weight or bias.
import numpy as np
import torch
from numpy.lib.stride_tricks import sliding_window_view


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    ph, pw = (padding, padding) if isinstance(padding, int) else padding
    dh, dw = (dilation, dilation) if isinstance(dilation, int) else dilation
    c_out, cg, kh, kw = weight.shape
    xp = np.pad(x.detach().cpu().numpy(), ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    windows = sliding_window_view(xp, (dh * (kh - 1) + 1, dw * (kw - 1) + 1), axis=(2, 3))[:, :, ::sh, ::sw, ::dh, ::dw]
    n, _, h_out, w_out = windows.shape[:4]
    windows = windows.reshape(n, groups, cg, h_out, w_out, kh, kw)
    kernels = weight.detach().cpu().numpy().reshape(groups, c_out // groups, cg, kh, kw)
    out = np.einsum("ngchwij,gocij->ngohw", windows, kernels).reshape(n, c_out, h_out, w_out)
    if bias is not None:
        out = out + bias.detach().cpu().numpy()[:, None, None]
    return torch.from_numpy(np.ascontiguousarray(out)).to(x.device)
