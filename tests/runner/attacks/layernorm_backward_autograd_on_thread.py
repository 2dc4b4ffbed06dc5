# expect: runtime_error
# message: refused a new thread
# problem: layernorm-backward
# tests: all
# Lets autograd differentiate a hand-written forward, as uses_autograd.py does, but on a helper thread: the
# saved-tensor hooks that make recording a graph forbidden are the calling thread's, so autograd's work there
# went unseen and the values were right. The judge refuses threads the submission starts instead.
import threading

import torch


def layer_norm_backward(dy, x, weight, eps=1e-5):
    grads = []

    def differentiate():
        xs, ws = x.detach().requires_grad_(), weight.detach().requires_grad_()
        bias = torch.zeros_like(ws, requires_grad=True)
        centred = xs - xs.mean(dim=-1, keepdim=True)
        y = centred * torch.rsqrt(centred.pow(2).mean(dim=-1, keepdim=True) + eps) * ws + bias
        grads.extend(torch.autograd.grad(y, (xs, ws, bias), dy))

    worker = threading.Thread(target=differentiate)
    worker.start()
    worker.join()
    return tuple(grads)
