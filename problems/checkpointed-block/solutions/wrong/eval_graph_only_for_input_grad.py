# expect: wrong_answer
# mistake: in eval mode it records a graph only when x requires grad, as if gradients in eval were only ever wanted for the input: evaluating a raw input detaches the output from the parameters, whose gradients (probing a frozen-input model, influence scores) are lost
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
            with torch.set_grad_enabled(torch.is_grad_enabled() and x.requires_grad):
                return self.block(x)
        if not torch.is_grad_enabled():
            return self.block(x)
        return checkpoint(self.block, x, use_reentrant=False)
