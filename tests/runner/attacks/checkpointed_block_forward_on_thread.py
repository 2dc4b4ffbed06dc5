# expect: runtime_error
# message: refused a new thread
# problem: checkpointed-block
# tests: all
# Checkpoints in every mode, as always_checkpoint.py does, so a backward through an eval-mode model runs the
# block twice, with the forward on a helper thread: the harness's count of the operators the block dispatches is
# a dispatch mode of the calling thread and sees only the recompute there. (The kit's hook on the block counts
# runs on every thread, and said two.) On the CPU the judge refuses threads the submission starts, so no count
# it keeps inside the process is left to one thread's view.
import threading

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedBlock(nn.Module):
    def __init__(self, block: nn.Module):
        super().__init__()
        self.block = block

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        result, grad_enabled = [], torch.is_grad_enabled()

        def run():
            with torch.set_grad_enabled(grad_enabled):
                result.append(checkpoint(self.block, x, use_reentrant=False, preserve_rng_state=True))

        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
        return result[0]
