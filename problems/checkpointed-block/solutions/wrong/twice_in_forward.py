# expect: wrong_answer
# mistake: runs the block twice in forward; the graphed second run draws new dropout masks, so the gradients do not match the returned output and every later block's masks shift
# message: gradient
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
        with torch.no_grad():
            value = self.block(x)
        graphed = checkpoint(self.block, x, use_reentrant=False)
        return value + (graphed - graphed.detach())
