# expect: wrong_answer
# mistake: checkpoints in eval mode too, so a backward through an eval-mode model runs the block twice for nothing
# message: block ran 2 times
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return checkpoint(self.block, x, use_reentrant=False)
