# expect: wrong_answer
# mistake: a hand-written backward takes sigmoid(g) as the derivative of silu(g) = g * sigmoid(g), dropping the product rule's g * sigmoid(g) * (1 - sigmoid(g)); the forward pass is right, the gradients of x, w1 and w3 are not
# message: gradient
import torch
import torch.nn.functional as F
from torch import nn


class _SwiGLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, w3, w2):
        gate, up = F.linear(x, w1), F.linear(x, w3)
        ctx.save_for_backward(x, w1, w3, w2, gate, up)
        return F.linear(F.silu(gate) * up, w2)

    @staticmethod
    def backward(ctx, grad_out):
        x, w1, w3, w2, gate, up = ctx.saved_tensors
        rows = lambda t: t.reshape(-1, t.size(-1))  # noqa: E731
        activated = F.silu(gate)
        grad_hidden = grad_out @ w2
        grad_up = grad_hidden * activated
        grad_gate = grad_hidden * up * torch.sigmoid(gate)
        return (grad_gate @ w1 + grad_up @ w3, rows(grad_gate).T @ rows(x), rows(grad_up).T @ rows(x),
                rows(grad_out).T @ rows(activated * up))


class SwiGLU(nn.Module):
    def __init__(self, d_model: int, d_hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_hidden, bias=False)
        self.w3 = nn.Linear(d_model, d_hidden, bias=False)
        self.w2 = nn.Linear(d_hidden, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _SwiGLUFunction.apply(x, self.w1.weight, self.w3.weight, self.w2.weight)
