# expect: memory_limit_exceeded
# mistake: asks x.requires_grad, not torch.is_grad_enabled(), whether a graph is being recorded: a block whose input is a raw tensor (frozen features, the first block after a frozen embedding) runs plainly and keeps every activation, although its parameters still need gradients
# message: peak
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not (self.training and x.requires_grad):
            return self.block(x)
        return checkpoint(self.block, x, use_reentrant=False)
