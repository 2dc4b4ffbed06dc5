# expect: wrong_answer
# mistake: wraps a deep copy of the block, to leave the caller's module untouched: the copy's parameters are the ones trained, and the caller's, which its optimiser holds, never get a gradient
# message: parameter
import copy

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = copy.deepcopy(block)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not (self.training and torch.is_grad_enabled()):
            return self.block(x)
        return checkpoint(self.block, x, use_reentrant=False)
