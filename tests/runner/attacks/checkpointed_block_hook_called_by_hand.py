# expect: wrong_answer
# problem: checkpointed-block
# tests: all
# message: block ran 2 times
# Checkpoints in eval mode too, so a backward through an eval-mode model runs the block twice, and hides it
# from the block's own counter: it takes the counting hook off the block it wraps and calls it by hand once
# per forward, so the hook's count says one run. The harness's operator counts see every layer norm the
# second run dispatches, and the checker holds them against the reference's.
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.hooks = list(block._forward_pre_hooks.values())
        block._forward_pre_hooks.clear()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for hook in self.hooks:
            hook(self.block, (x,))
        return checkpoint(self.block, x, use_reentrant=False)
