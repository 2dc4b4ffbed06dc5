# expect: forbidden
# message: aten::_masked_softmax
# Computes the softmax with aten::_masked_softmax and a mask that hides nothing: a softmax kernel that a list
# of the softmax kernels' names missed. The problem forbids every operator whose name holds its stem, or
# allows it with a reason, and `runner check` holds the package to that for the installed PyTorch.
import torch


def softmax(x, dim=-1):
    x = x.contiguous()  # the kernel reads a transposed view's storage as if it were contiguous
    return torch._masked_softmax(x, torch.zeros_like(x, dtype=torch.bool), dim % x.dim())
