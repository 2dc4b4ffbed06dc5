# expect: wrong_answer
# mistake: checkpoints a detached copy of the input, which cuts the graph: nothing upstream of the block gets a gradient
# message: input gradient
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
        return checkpoint(self.block, x.detach(), use_reentrant=False)
