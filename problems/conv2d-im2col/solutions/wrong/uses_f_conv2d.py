# expect: forbidden
# message: aten::convolution
# fails-on: small-3x3
# The library call: F.conv2d reaches aten::convolution (and its backward aten::convolution_backward),
# which the judge refuses.
import torch.nn.functional as F


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return F.conv2d(x, weight, bias, stride=stride, padding=padding, dilation=dilation, groups=groups)
