# expect: wrong_answer
# mistake: treats eval() as no_grad(): in eval mode the output is detached, so input gradients (saliency, adversarial examples) are lost
# message: eval
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            with torch.no_grad():
                return self.block(x)
        return checkpoint(self.block, x, use_reentrant=False)
