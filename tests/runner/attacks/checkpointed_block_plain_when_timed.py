# expect: wrong_answer
# message: ran 1 time for one forward and backward
# problem: checkpointed-block
# tests: all
# Checkpoints while the harness's tensor tracker watches the call and runs the block plainly when it does not:
# a checked call sees a checkpointed block; a timed call keeps every activation and skips the recomputation,
# 0.82 times the reference's time instead of about 1. The resident set grows a few MiB more than a checkpointed
# step's, within what the outside memory check allows a timed call. The blocks' runs are counted on every call,
# timed ones included, by hooks and by the layer norms the dispatcher computes, against the reference's.
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint
from torch.utils._python_dispatch import _get_current_dispatch_mode


def _watched() -> bool:
    mode = _get_current_dispatch_mode()
    return bool(getattr(mode, "track_memory", False))


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not (self.training and torch.is_grad_enabled()) or not _watched():
            return self.block(x)
        return checkpoint(self.block, x, use_reentrant=False)
