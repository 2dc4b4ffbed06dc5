# expect: wrong_answer
# mistake: the reentrant checkpoint detaches an output whose input does not require grad, so the block's parameter gradients are silently lost
# message: parameter
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not (self.training and torch.is_grad_enabled()):
            return self.block(x)
        return checkpoint(self.block, x, use_reentrant=True)
