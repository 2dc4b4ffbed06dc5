# expect: forbidden
# message: aten::convolution
# fails-on: small-3x3
# The module instead of the function, its parameters overwritten with the caller's: the same kernel under it.
import torch


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    c_out, cg, kh, kw = weight.shape
    layer = torch.nn.Conv2d(cg * groups, c_out, (kh, kw), stride=stride, padding=padding, dilation=dilation,
                            groups=groups, bias=bias is not None).to(x.dtype)
    del layer.weight, layer.bias
    layer.weight, layer.bias = weight, bias
    return layer(x)
