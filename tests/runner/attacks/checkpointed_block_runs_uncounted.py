# expect: wrong_answer
# problem: checkpointed-block
# tests: all
# message: block ran 0 times
# Checkpoints in eval mode too, so a backward through an eval-mode model runs the block twice, and hides it:
# at import it makes the package's old call counter (blocks.CallCounter) claim a single run, and it removes
# every forward hook from the block it wraps. The checker wants exactly one run reported, so a count that
# never happened fails as surely as two runs do.
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

import blocks

if hasattr(blocks, "CallCounter"):
    def _claims_one_run(self, x):
        self.calls = 1
        return self.inner(x)

    blocks.CallCounter.forward = _claims_one_run


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        block._forward_pre_hooks.clear()
        block._forward_hooks.clear()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return checkpoint(self.block, x, use_reentrant=False)
