import torch


def conv2d(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, stride=1, padding=0,
           dilation=1, groups: int = 1) -> torch.Tensor:
    """2-D cross-correlation, as F.conv2d computes it, built from unfold (im2col) and a matmul.

    x is (N, C_in, H, W), weight (C_out, C_in / groups, kH, kW), bias (C_out,) or None; stride, padding and
    dilation are each an int or a pair (rows, columns); padding is with zeros. Returns (N, C_out, H_out, W_out)
    with H_out = (H + 2*padding - dilation*(kH - 1) - 1) // stride + 1 (and likewise W_out), differentiable
    with respect to x, weight and bias. F.conv2d, nn.Conv2d and every convolution operator are not allowed.
    """
    raise NotImplementedError
