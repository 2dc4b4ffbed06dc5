# expect: accepted
# style: im2col in float64 — F.unfold of a float64 copy of the input, one einsum with the kernels, cast back at the end
# In float32 its sums round differently from a float32 matmul's (far less); in float64 the einsum orders the
# sums of weight.grad (4·48·48 products each at the largest) differently from the reference's matmul of the
# unfolded columns. Both stay within the floor at the sums' magnitude that the Limits state.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    settings = [value if isinstance(value, (tuple, list)) else (value, value) for value in (stride, padding, dilation)]
    kernel = weight.shape[2:]
    # Output rows and columns: floor((size + 2·padding − dilation·(k − 1) − 1) / stride) + 1 for each.
    out_size = [(size + 2 * p - d * (k - 1) - 1) // s + 1
                for size, k, s, p, d in zip(x.shape[2:], kernel, *settings)]
    fields = F.unfold(x.double(), kernel, dilation=settings[2], padding=settings[1], stride=settings[0])
    fields = fields.unflatten(1, (groups, -1))                          # (N, G, C_in/G · kH · kW, L)
    kernels = weight.double().flatten(1).unflatten(0, (groups, -1))     # (G, C_out/G, C_in/G · kH · kW)
    out = torch.einsum("gok,ngkl->ngol", kernels, fields).flatten(1, 2).unflatten(2, out_size)
    if bias is not None:
        out = out + bias.double()[:, None, None]
    return out.to(x.dtype)
