# expect: forbidden
# message: aten::native_layer_norm_backward
# fails-on: rows-float32
# Calls the kernel autograd itself uses for F.layer_norm, with the statistics from the forward kernel.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    d = x.shape[-1]
    bias = torch.zeros_like(weight)
    _, mean, rstd = torch.ops.aten.native_layer_norm(x, [d], weight, bias, eps)
    return torch.ops.aten.native_layer_norm_backward(dy, x, [d], mean, rstd, weight, bias, [True, True, True])
