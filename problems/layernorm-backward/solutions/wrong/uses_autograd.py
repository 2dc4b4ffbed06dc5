# expect: forbidden
# message: autograd::graph_recorded
# fails-on: rows-float32
# Writes the forward pass by hand and lets autograd differentiate it: right values, but the exercise is the
# backward pass, and recording a graph for autograd is refused.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    x, weight = x.detach().requires_grad_(), weight.detach().requires_grad_()
    bias = torch.zeros_like(weight, requires_grad=True)
    centred = x - x.mean(dim=-1, keepdim=True)
    y = centred * torch.rsqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps) * weight + bias
    return torch.autograd.grad(y, (x, weight, bias), dy)
