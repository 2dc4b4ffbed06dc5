# expect: memory_limit_exceeded
# mistake: runs the block plainly, so every activation of every block stays alive until backward
# message: peak
import torch
from torch import nn


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.block(x)
