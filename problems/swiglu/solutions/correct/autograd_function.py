# expect: accepted
# style: a custom torch.autograd.Function with a hand-written backward; between the passes it keeps only x and the two pre-activations
import torch
import torch.nn.functional as F
from torch import nn


def _rows(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(-1, t.size(-1))


class _SwiGLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, w3, w2):
        gate = F.linear(x, w1)
        up = F.linear(x, w3)
        ctx.save_for_backward(x, w1, w3, w2, gate, up)
        return F.linear(F.silu(gate) * up, w2)

    @staticmethod
    def backward(ctx, grad_out):
        x, w1, w3, w2, gate, up = ctx.saved_tensors
        sig = torch.sigmoid(gate)
        activated = gate * sig
        grad_w2 = _rows(grad_out).T @ _rows(activated * up)
        grad_hidden = grad_out @ w2
        grad_up = grad_hidden * activated
        # silu'(g) = sigmoid(g) * (1 + g - silu(g)), built in place over buffers that are no longer
        # needed, to keep the transient memory of the backward pass small.
        grad_gate = grad_hidden.mul_(up).mul_(activated.neg_().add_(gate).add_(1).mul_(sig))
        grad_x = grad_gate @ w1 + grad_up @ w3
        grad_w1 = _rows(grad_gate).T @ _rows(x)
        grad_w3 = _rows(grad_up).T @ _rows(x)
        return grad_x, grad_w1, grad_w3, grad_w2


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden, bias=False)
        self.w3 = nn.Linear(d_model, d_hidden, bias=False)
        self.w2 = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _SwiGLUFunction.apply(x, self.w1.weight, self.w3.weight, self.w2.weight)
