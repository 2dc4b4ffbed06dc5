import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Recomputing only pays off when a graph is being recorded for a backward pass that will follow;
        # in eval or under no_grad there is nothing to save, so a second run would be pure cost.
        if not (self.training and torch.is_grad_enabled()):
            return self.block(x)
        # The non-reentrant variant hooks the saved tensors rather than re-entering the autograd engine, so
        # parameter gradients flow even when x does not require grad, and it replays the CPU and CUDA RNG
        # state so that dropout draws the same masks when the block is recomputed.
        return checkpoint(self.block, x, use_reentrant=False, preserve_rng_state=True)
