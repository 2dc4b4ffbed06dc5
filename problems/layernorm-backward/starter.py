import torch


def layer_norm_backward(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor,
                        eps: float = 1e-5) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The gradients of y = (x - mean) / sqrt(var + eps) * weight + bias over the last dimension of x.

    dy and x are (..., d), weight is (d,); var is the biased variance (divided by d). Return the tuple
    (dx, dweight, dbias): dx of x's shape, dweight and dbias of shape (d,), all of x's dtype.
    Written by hand: autograd (torch.autograd.grad, .backward(), torch.func) and the layer-norm
    kernels are refused.
    """
    raise NotImplementedError
