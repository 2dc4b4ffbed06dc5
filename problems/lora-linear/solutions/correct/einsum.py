# expect: accepted
# style: einsum over any number of leading axes; the merged state read from a buffer, the merge as an in-place addmm_ under no_grad
import torch
from torch import nn


class LoRALinear(nn.Module):
    def __init__(self, in_features: int, out_features: int, r: int, alpha: float) -> None:
        super().__init__()
        self.base = nn.Linear(in_features, out_features).requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(r, in_features) * 0.01)
        self.lora_B = nn.Parameter(torch.zeros(out_features, r))
        self.r, self.alpha = r, alpha
        self.register_buffer("is_merged", torch.zeros((), dtype=torch.bool), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.einsum("...i,oi->...o", x, self.base.weight) + self.base.bias
        if self.is_merged:
            return y
        low = torch.einsum("...i,ri->...r", x, self.lora_A)
        return y + torch.einsum("...r,or->...o", low, self.lora_B) * (self.alpha / self.r)

    @torch.no_grad()
    def merge(self) -> None:
        if not self.is_merged:
            self.base.weight.addmm_(self.lora_B, self.lora_A, alpha=self.alpha / self.r)
            self.is_merged.fill_(True)

    @torch.no_grad()
    def unmerge(self) -> None:
        if self.is_merged:
            self.base.weight.addmm_(self.lora_B, self.lora_A, alpha=-self.alpha / self.r)
            self.is_merged.fill_(False)
