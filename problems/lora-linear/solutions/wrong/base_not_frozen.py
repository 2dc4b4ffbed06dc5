# expect: wrong_answer
# message: base.weight is learnable, but it must be frozen
# fails-on: forward-float64
# Forgets to freeze the pre-trained layer: every weight of the model is trained again, and the optimizer keeps
# two moments for each, which is what LoRA exists to avoid.
import math

import torch
from torch import nn


class LoRALinear(nn.Module):
    """`base(x) + (alpha / r) * (x @ lora_A.T) @ lora_B.T`, with `base` frozen; merge() folds the update in."""

    def __init__(self, in_features: int, out_features: int, r: int, alpha: float) -> None:
        super().__init__()
        self.base = nn.Linear(in_features, out_features)
        self.lora_A = nn.Parameter(torch.empty(r, in_features))
        self.lora_B = nn.Parameter(torch.zeros(out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scaling = alpha / r
        self.merged = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.base(x)
        if self.merged:
            return y
        # Through the rank-r bottleneck: (x A^T) B^T never forms the out x in matrix B A.
        return y + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)

    @torch.no_grad()
    def merge(self) -> None:
        if not self.merged:
            self.base.weight.addmm_(self.lora_B, self.lora_A, alpha=self.scaling)
            self.merged = True

    @torch.no_grad()
    def unmerge(self) -> None:
        if self.merged:
            self.base.weight.addmm_(self.lora_B, self.lora_A, alpha=-self.scaling)
            self.merged = False
