# expect: runtime_error
# message: RuntimeError
# fails-on: rows-float32
# Lets torch.func differentiate a hand-written forward pass: its transforms refuse to run under the
# saved-tensor hooks the judge sets, and raise.
import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    def forward(x, weight, bias):
        centred = x - x.mean(dim=-1, keepdim=True)
        return centred * torch.rsqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps) * weight + bias

    _, vjp = torch.func.vjp(forward, x, weight, torch.zeros_like(weight))
    return vjp(dy)
