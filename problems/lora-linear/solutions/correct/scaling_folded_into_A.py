# expect: accepted
# style: the scaling folded into the down-projection, x @ (alpha/r · lora_A).T @ lora_B.T; merge() as one fused
# addmm_, unmerge() subtracting the forward's own product lora_B @ (alpha/r · lora_A). The two updates are equal
# in exact arithmetic and round differently, so base.weight after unmerge() is not bit for bit the frozen weight:
# it carries the rounding of the merged weight (up to alpha/r = 128 times the update), not of the weight it
# returns to.
import torch
from torch import nn


class LoRALinear(nn.Module):
    def __init__(self, in_features: int, out_features: int, r: int, alpha: float) -> None:
        super().__init__()
        self.base = nn.Linear(in_features, out_features).requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(r, in_features) * in_features ** -0.5)
        self.lora_B = nn.Parameter(torch.zeros(out_features, r))
        self.scaling = alpha / r
        self.merged = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.merged:
            return self.base(x)
        return self.base(x) + (x @ (self.scaling * self.lora_A).T) @ self.lora_B.T

    @torch.no_grad()
    def merge(self) -> None:
        if self.merged:
            return
        self.base.weight.addmm_(self.lora_B, self.lora_A, alpha=self.scaling)
        self.merged = True

    @torch.no_grad()
    def unmerge(self) -> None:
        if not self.merged:
            return
        self.base.weight -= self.lora_B @ (self.scaling * self.lora_A)
        self.merged = False
