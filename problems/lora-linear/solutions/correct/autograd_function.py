# expect: accepted
# style: a custom torch.autograd.Function with a hand-written backward that returns gradients for x, lora_A and lora_B only
import torch
from torch import nn


def _rows(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(-1, t.size(-1))


class _LoRAFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, lora_A, lora_B, scaling):
        low = x @ lora_A.T
        ctx.save_for_backward(x, weight, lora_A, lora_B, low)
        ctx.scaling = scaling
        return x @ weight.T + bias + scaling * (low @ lora_B.T)

    @staticmethod
    def backward(ctx, grad_y):
        x, weight, lora_A, lora_B, low = ctx.saved_tensors
        s = ctx.scaling
        grad_low = s * (grad_y @ lora_B)                    # (..., r)
        grad_x = grad_y @ weight + grad_low @ lora_A
        grad_B = s * (_rows(grad_y).T @ _rows(low))         # (out, r)
        grad_A = _rows(grad_low).T @ _rows(x)               # (r, in)
        return grad_x, None, None, grad_A, grad_B, None


class LoRALinear(nn.Module):
    def __init__(self, in_features: int, out_features: int, r: int, alpha: float) -> None:
        super().__init__()
        self.base = nn.Linear(in_features, out_features)
        self.base.weight.requires_grad_(False)
        self.base.bias.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.empty(r, in_features).uniform_(-1 / in_features**0.5, 1 / in_features**0.5))
        self.lora_B = nn.Parameter(torch.zeros(out_features, r))
        self.scaling = float(alpha) / r
        self.merged = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.merged:
            return self.base(x)
        return _LoRAFunction.apply(x, self.base.weight, self.base.bias, self.lora_A, self.lora_B, self.scaling)

    def _fold(self, sign: float) -> None:
        with torch.no_grad():
            self.base.weight.add_(sign * self.scaling * (self.lora_B @ self.lora_A))

    def merge(self) -> None:
        if not self.merged:
            self._fold(+1.0)
            self.merged = True

    def unmerge(self) -> None:
        if self.merged:
            self._fold(-1.0)
            self.merged = False
