# expect: wrong_answer
# message: without the alpha / r scaling
# fails-on: merge-unmerge-float64
# forward scales the update, merge() does not: the merged layer computes another function than the one
# trained, which shows only once the model is deployed merged.
import math

import torch
from torch import nn


class LoRALinear(nn.Module):
    """`base(x) + (alpha / r) * (x @ lora_A.T) @ lora_B.T`, with `base` frozen; merge() folds the update in."""

    def __init__(self, in_features: int, out_features: int, r: int, alpha: float) -> None:
        super().__init__()
        self.base = nn.Linear(in_features, out_features)
        self.base.requires_grad_(False)
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
            self.base.weight.addmm_(self.lora_B, self.lora_A)
            self.merged = True

    @torch.no_grad()
    def unmerge(self) -> None:
        if self.merged:
            self.base.weight.addmm_(self.lora_B, self.lora_A, alpha=-1.0)
            self.merged = False
