import torch
from torch import nn


class LoRALinear(nn.Module):
    """A frozen `base = nn.Linear(in_features, out_features)` plus a trainable rank-`r` update.

    forward(x) = base(x) + (alpha / r) * x @ lora_A.T @ lora_B.T, with lora_A of shape (r, in_features) and
    lora_B of shape (out_features, r). merge() folds the update into base.weight, unmerge() takes it out.
    """

    def __init__(self, in_features: int, out_features: int, r: int, alpha: float) -> None:
        super().__init__()
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Map `x` of shape `(..., in_features)` to `(..., out_features)`."""
        raise NotImplementedError

    def merge(self) -> None:
        """Fold (alpha / r) * lora_B @ lora_A into base.weight; forward is then base(x) alone."""
        raise NotImplementedError

    def unmerge(self) -> None:
        """Undo merge(): base.weight back to the frozen weight, the update applied separately again."""
        raise NotImplementedError
