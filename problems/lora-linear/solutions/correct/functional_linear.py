# expect: accepted
# style: the adapters applied as two F.linear calls through the rank-r bottleneck; merge and unmerge write through .data
import torch
import torch.nn.functional as F
from torch import nn


class LoRALinear(nn.Module):
    def __init__(self, in_features: int, out_features: int, r: int, alpha: float) -> None:
        super().__init__()
        self.base = nn.Linear(in_features, out_features)
        for parameter in self.base.parameters():
            parameter.requires_grad = False
        self.lora_A = nn.Parameter(torch.randn(r, in_features) / r)
        self.lora_B = nn.Parameter(torch.zeros(out_features, r))
        self.scaling = alpha / r
        self.merged = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.base(x)
        if not self.merged:
            y = y + F.linear(F.linear(x, self.lora_A), self.lora_B) * self.scaling
        return y

    def delta(self) -> torch.Tensor:
        return (self.lora_B.data @ self.lora_A.data) * self.scaling

    def merge(self) -> None:
        if not self.merged:
            self.base.weight.data += self.delta()
            self.merged = True

    def unmerge(self) -> None:
        if self.merged:
            self.base.weight.data -= self.delta()
            self.merged = False
